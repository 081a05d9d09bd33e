//! The page's query parameters: `?backend=webgl2|webgpu` and `?asset=URL`.

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

/// What the page's query string asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageParams {
    /// `?backend=`: the backend to force; `None` picks WebGPU when the browser has it.
    pub backend: Option<Backend>,
    /// `?asset=`: a `.glb` URL to fetch instead of the built-in character.
    pub asset: Option<String>,
}

impl PageParams {
    /// Reads the parameters from decoded `(key, value)` pairs (the page passes
    /// `URLSearchParams`' entries). Unknown keys are ignored; an empty value counts as absent.
    ///
    /// # Errors
    /// [`WebError::UnknownBackend`] for a `backend` that is neither `webgpu` nor `webgl2`.
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
                _ => {}
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
    fn an_unknown_backend_is_a_typed_error() {
        let err = PageParams::from_pairs([("backend", "vulkan")]);
        assert!(matches!(err, Err(WebError::UnknownBackend { got }) if got == "vulkan"));
    }

    #[test]
    fn empty_and_unknown_keys_are_ignored() {
        let params = PageParams::from_pairs([("backend", ""), ("zoom", "2"), ("asset", " ")]);
        assert_eq!(params.ok(), Some(PageParams::default()));
    }
}
