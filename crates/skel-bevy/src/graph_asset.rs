//! Animation-graph files (skel-graph's JSON format, `docs/graph.md`) as Bevy assets, and the
//! [`SkelGraph`] component that makes a character play one.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::prelude::{Component, Handle};
use bevy::reflect::TypePath;
use skel_graph::GraphDef;

use crate::{SkelBevyError, SkelPlayer};

/// An animation-graph file as read (skel-graph's [`GraphDef`]: parameters, layers of state
/// machines, blend spaces, transitions). It names clips and nodes; the plugin compiles it
/// against each character's rig when the character binds, so one file serves every model
/// whose clips it names.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct SkelGraphFile {
    def: GraphDef,
}

impl SkelGraphFile {
    /// Reads a graph file's text.
    ///
    /// ```
    /// let file = skel_bevy::SkelGraphFile::from_json(
    ///     r#"{ "layers": [ { "name": "base", "entry": "idle",
    ///          "states": { "idle": { "clip": "Idle" } } } ] }"#,
    /// )?;
    /// assert_eq!(file.def().layers.len(), 1);
    /// # Ok::<(), skel_bevy::SkelBevyError>(())
    /// ```
    ///
    /// # Errors
    /// [`SkelBevyError::Graph`] (skel-graph's `Format` error, with the JSON path, line and
    /// column) for text that is not of the format.
    pub fn from_json(text: &str) -> Result<Self, SkelBevyError> {
        Ok(Self {
            def: GraphDef::from_json(text)?,
        })
    }

    /// The file as read.
    #[must_use]
    pub fn def(&self) -> &GraphDef {
        &self.def
    }
}

/// Loads [`SkelGraphFile`]s. Its extension is `skelgraph.json`; a typed load
/// (`server.load::<SkelGraphFile>("graphs/robot.json")`) picks it for any file name, since it
/// is the only loader of that asset type.
#[derive(Debug, Default, Clone, Copy, TypePath)]
pub struct SkelGraphLoader;

impl AssetLoader for SkelGraphLoader {
    type Asset = SkelGraphFile;
    type Settings = ();
    type Error = SkelBevyError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<SkelGraphFile, SkelBevyError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            SkelBevyError::Graph(skel_graph::GraphError::Format {
                path: ".".into(),
                message: format!("not UTF-8: {e}"),
            })
        })?;
        SkelGraphFile::from_json(text)
    }

    fn extensions(&self) -> &[&str] {
        &["skelgraph.json"]
    }
}

/// Makes a character play an animation graph: add it beside the character's `WorldAssetRoot`
/// (it brings a [`SkelPlayer`] with it). When the character binds, the plugin compiles the
/// graph against the character's rig and drives the player with it (skel-graph's
/// `GraphPlayer`: one layer group per graph layer); root motion ([`SkelRootMotion`](crate::SkelRootMotion)),
/// events ([`SkelEvent`](crate::SkelEvent)) and IK ([`SkelIk`](crate::SkelIk)) work as for
/// plain layers. The player's own layers, if any, play below the graph.
///
/// Parameters are set, and states read, from any system through the player once it is
/// bound: [`SkelPlayer::graph_mut`] and [`SkelPlayer::graph`] hand out skel-graph's
/// `GraphInstance` (`set_float`, `set_bool`, `set_trigger`, `state`, `clips`, `transition`).
/// A graph that fails to load or compile is a [`SkelBindError`](crate::SkelBindError) (also
/// logged); the character's transforms then stay as spawned.
///
/// A graph file that changes (edited on disk with bevy's `file_watcher` feature, or replaced
/// through `Assets::<SkelGraphFile>::get_mut`) is compiled again and every character playing
/// it is bound again on the next frame, from the graph's entry states (parameters, states and
/// clocks start over). A character whose graph had failed tries again; one whose changed
/// graph fails keeps its last pose with a `SkelBindError` until the next change.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy::gltf::GltfAssetLabel;
/// use bevy::world_serialization::WorldAssetRoot;
/// use skel_bevy::{SkelGraph, SkelGraphFile, SkelPlayer};
///
/// fn spawn(mut commands: Commands, server: Res<AssetServer>) {
///     let scene = server.load(GltfAssetLabel::Scene(0).from_asset("RobotExpressive.glb"));
///     let graph = server.load::<SkelGraphFile>("robot_expressive.json");
///     commands.spawn((WorldAssetRoot(scene), SkelGraph::new(graph)));
/// }
///
/// fn drive(time: Res<Time>, mut players: Query<&mut SkelPlayer, With<SkelGraph>>) {
///     let t = time.elapsed_secs();
///     for mut player in &mut players {
///         if let Some(graph) = player.graph_mut() {
///             let _ = graph.set_float("speed", 2.0 + t.sin());
///             if (t % 5.0) < time.delta_secs() {
///                 let _ = graph.set_trigger("jump");
///             }
///             let _state: Option<&str> = graph.state(0);
///         }
///     }
/// }
/// # let _ = (spawn, drive);
/// ```
#[derive(Component, Debug, Clone)]
#[require(SkelPlayer)]
pub struct SkelGraph {
    file: Handle<SkelGraphFile>,
}

impl SkelGraph {
    /// Plays the graph file `file` (a handle from `server.load::<SkelGraphFile>(path)` or
    /// `Assets::<SkelGraphFile>::add`).
    #[must_use]
    pub fn new(file: Handle<SkelGraphFile>) -> Self {
        Self { file }
    }

    /// The graph file.
    #[must_use]
    pub fn file(&self) -> &Handle<SkelGraphFile> {
        &self.file
    }
}
