//! The page's query parameters: `?backend=webgl2|webgpu`, `?asset=URL`, `?graph=URL|none`,
//! `?t=SECONDS`, `?crowd=N`, `?scene=slope`, `?springs=0` and `?test=1`.

use crate::WebError;

/// A browser graphics API the page can draw with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// WebGPU (`navigator.gpu`): every skel path runs.
    WebGpu,
    /// WebGL2 through wgpu's GL backend: no storage buffers, no compute.
    WebGl2,
}

impl Backend {
    /// The name the page uses in `?backend=` and in `data-skel-ready`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::WebGpu => "webgpu",
            Self::WebGl2 => "webgl2",
        }
    }

    /// Parses a `?backend=` value (`webgpu` or `webgl2`, ASCII case ignored).
    ///
    /// # Errors
    /// [`WebError::UnknownBackend`] for anything else.
    pub fn parse(value: &str) -> Result<Self, WebError> {
        match value.to_ascii_lowercase().as_str() {
            "webgpu" => Ok(Self::WebGpu),
            "webgl2" | "webgl" => Ok(Self::WebGl2),
            _ => Err(WebError::UnknownBackend {
                got: value.to_owned(),
            }),
        }
    }
}

/// What the page shows around the character (`?scene=`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SceneKind {
    /// The character alone on the background (no `?scene=`, or `?scene=default`).
    #[default]
    Default,
    /// `?scene=slope`: the built-in character on a slope under
    /// [`SLOPE_GRAPH_URL`](crate::SLOPE_GRAPH_URL), feet placed on it and head following the
    /// pointer.
    Slope,
}

impl SceneKind {
    /// Parses a `?scene=` value (`default` or `slope`, ASCII case ignored).
    ///
    /// # Errors
    /// [`WebError::UnknownScene`] for anything else.
    pub fn parse(value: &str) -> Result<Self, WebError> {
        match value.to_ascii_lowercase().as_str() {
            "default" => Ok(Self::Default),
            "slope" => Ok(Self::Slope),
            _ => Err(WebError::UnknownScene {
                got: value.to_owned(),
            }),
        }
    }
}

/// What the page's query string asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageParams {
    /// `?backend=`: the backend to force; `None` picks WebGPU when the browser has it.
    pub backend: Option<Backend>,
    /// `?asset=`: a `.glb` (or `.vrm`) URL to fetch instead of the built-in character.
    pub asset: Option<String>,
    /// `?graph=`: an animation-graph JSON URL to drive the asset with, or `none` to play its
    /// clip. Absent: the built-in character gets [`DEFAULT_GRAPH_URL`](crate::DEFAULT_GRAPH_URL),
    /// other assets play their clip.
    pub graph: Option<String>,
    /// `?t=`: hold the clip at this time (seconds) instead of playing it (and no graph), so
    /// that every frame, and every browser, draws the same picture (the browser check compares
    /// them).
    pub time: Option<f32>,
    /// `?crowd=N`: characters in the crowd the crowd toggle shows (1..=1000; default
    /// [`DEFAULT_CROWD`](crate::DEFAULT_CROWD)).
    pub crowd: Option<u32>,
    /// `?scene=`: what surrounds the character.
    pub scene: SceneKind,
    /// `?springs=0`: a VRM avatar's spring bones and node constraints do not run (its
    /// strands keep the clip's pose), for the browser check to compare with.
    pub no_springs: bool,
    /// `?test=1`: after the first frame, also pose the asset on the CPU at
    /// [`TEST_TIMES`](crate::TEST_TIMES) and publish the numbers in `data-skel-pose`, for
    /// `cargo xtask web --check` to compare with native.
    pub test: bool,
}

impl PageParams {
    /// The graph to load: `?graph=` unless `none`; without it, the built-in character's graph
    /// ([`SLOPE_GRAPH_URL`](crate::SLOPE_GRAPH_URL) in the slope scene) when the page draws
    /// the built-in character and holds no time.
    #[must_use]
    pub fn graph_url(&self) -> Option<&str> {
        match (&self.graph, &self.asset, self.time) {
            (Some(url), _, _) if url == "none" => None,
            (Some(url), _, _) => Some(url),
            (None, None, None) if self.scene == SceneKind::Slope => Some(crate::SLOPE_GRAPH_URL),
            (None, None, None) => Some(crate::DEFAULT_GRAPH_URL),
            _ => None,
        }
    }

    /// Reads the parameters from decoded `(key, value)` pairs (the page passes
    /// `URLSearchParams`' entries). Unknown keys are ignored; an empty value counts as absent.
    ///
    /// # Errors
    /// [`WebError::UnknownBackend`] for a `backend` that is neither `webgpu` nor `webgl2`;
    /// [`WebError::BadTime`] for a `t` that is not a finite number of seconds ≥ 0;
    /// [`WebError::BadCrowd`] for a `crowd` outside 1..=[`MAX_CROWD`](crate::MAX_CROWD);
    /// [`WebError::UnknownScene`] for a `scene` other than `default` or `slope`;
    /// [`WebError::SceneConflict`] for the slope scene with `t` (its feet settle over time) or
    /// `asset` (it needs the built-in character's joints) or `graph=none` (the graph places
    /// the feet).
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Result<Self, WebError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut params = Self::default();
        for (key, value) in pairs {
            let value = value.as_ref().trim();
            if value.is_empty() {
                continue;
            }
            match key.as_ref() {
                "backend" => params.backend = Some(Backend::parse(value)?),
                "asset" => params.asset = Some(value.to_owned()),
                "t" => {
                    params.time = Some(
                        value
                            .parse::<f32>()
                            .ok()
                            .filter(|t| t.is_finite() && *t >= 0.0)
                            .ok_or_else(|| WebError::BadTime {
                                got: value.to_owned(),
                            })?,
                    );
                }
                "test" => params.test = value != "0",
                "springs" => params.no_springs = value == "0",
                "graph" => params.graph = Some(value.to_owned()),
                "scene" => params.scene = SceneKind::parse(value)?,
                "crowd" => {
                    params.crowd = Some(
                        value
                            .parse::<u32>()
                            .ok()
                            .filter(|n| (1..=crate::MAX_CROWD).contains(n))
                            .ok_or_else(|| WebError::BadCrowd {
                                got: value.to_owned(),
                            })?,
                    );
                }
                _ => {}
            }
        }
        if params.scene == SceneKind::Slope {
            let conflict = if params.time.is_some() {
                Some("t")
            } else if params.asset.is_some() {
                Some("asset")
            } else if params.graph.as_deref() == Some("none") {
                Some("graph=none")
            } else {
                None
            };
            if let Some(with) = conflict {
                return Err(WebError::SceneConflict {
                    scene: "slope",
                    with,
                });
            }
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_parse_and_name_round_trip() {
        for backend in [Backend::WebGpu, Backend::WebGl2] {
            assert_eq!(Backend::parse(backend.name()).ok(), Some(backend));
        }
        assert_eq!(Backend::parse("WebGL2").ok(), Some(Backend::WebGl2));
    }

    #[test]
    fn springs_run_unless_the_page_says_springs_0() {
        assert!(
            !PageParams::from_pairs([("asset", "a.vrm")])
                .unwrap()
                .no_springs
        );
        for (value, off) in [("0", true), ("1", false)] {
            let params = PageParams::from_pairs([("springs", value)]).unwrap();
            assert_eq!(params.no_springs, off, "springs={value}");
        }
    }

    #[test]
    fn an_unknown_backend_is_a_typed_error() {
        let err = PageParams::from_pairs([("backend", "vulkan")]);
        assert!(matches!(err, Err(WebError::UnknownBackend { got }) if got == "vulkan"));
    }

    #[test]
    fn a_held_time_and_the_test_switch_parse() {
        let params = PageParams::from_pairs([("t", "0.75"), ("test", "1")]).unwrap();
        assert_eq!((params.time, params.test), (Some(0.75), true));
        assert_eq!(
            PageParams::from_pairs([("crowd", "9")]).unwrap().crowd,
            Some(9)
        );
        for bad in ["0", "1001", "many"] {
            let err = PageParams::from_pairs([("crowd", bad)]);
            assert!(matches!(err, Err(WebError::BadCrowd { got }) if got == bad));
        }
        for bad in ["-1", "NaN", "soon"] {
            let err = PageParams::from_pairs([("t", bad)]);
            assert!(matches!(err, Err(WebError::BadTime { got }) if got == bad));
        }
    }

    #[test]
    fn the_built_in_character_gets_its_graph_unless_held_or_told() {
        let url = |pairs: &[(&str, &str)]| {
            PageParams::from_pairs(pairs.iter().copied())
                .unwrap()
                .graph_url()
                .map(str::to_owned)
        };
        assert_eq!(url(&[]).as_deref(), Some(crate::DEFAULT_GRAPH_URL));
        assert_eq!(url(&[("t", "1")]), None);
        assert_eq!(url(&[("asset", "fox.glb")]), None);
        assert_eq!(url(&[("graph", "none")]), None);
        assert_eq!(
            url(&[("asset", "fox.glb"), ("graph", "fox.json")]).as_deref(),
            Some("fox.json")
        );
    }

    #[test]
    fn the_slope_scene_gets_its_graph_and_refuses_what_it_cannot_show() {
        let slope = PageParams::from_pairs([("scene", "Slope")]).unwrap();
        assert_eq!(slope.scene, SceneKind::Slope);
        assert_eq!(slope.graph_url(), Some(crate::SLOPE_GRAPH_URL));
        let own = PageParams::from_pairs([("scene", "slope"), ("graph", "mine.json")]).unwrap();
        assert_eq!(own.graph_url(), Some("mine.json"));
        assert_eq!(
            PageParams::from_pairs([("scene", "default")])
                .unwrap()
                .scene,
            SceneKind::Default
        );
        for (key, value, with) in [
            ("t", "0.5", "t"),
            ("asset", "fox.glb", "asset"),
            ("graph", "none", "graph=none"),
        ] {
            let err = PageParams::from_pairs([("scene", "slope"), (key, value)]);
            assert!(
                matches!(err, Err(WebError::SceneConflict { scene: "slope", with: w }) if w == with),
                "{key}={value}: {err:?}"
            );
        }
        let err = PageParams::from_pairs([("scene", "hill")]);
        assert!(matches!(err, Err(WebError::UnknownScene { got }) if got == "hill"));
    }

    #[test]
    fn empty_and_unknown_keys_are_ignored() {
        let params = PageParams::from_pairs([("backend", ""), ("zoom", "2"), ("asset", " ")]);
        assert_eq!(params.ok(), Some(PageParams::default()));
    }
}
