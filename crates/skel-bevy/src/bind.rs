//! Binding: skel's nodes to the joint entities bevy's glTF loader spawned, once per character.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::LoadState;
use bevy::prelude::*;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};
use skel_anim::{AnimationData, Rig, RootMotion};
use skel_graph::Graph;

use crate::bind_state::{SkelBindError, SkelRigHandle, SkelSceneReady};
use crate::driver::Setup;
use crate::ik::BoundIk;
use crate::rig_files::RigFiles;
use crate::{
    SkelBevyError, SkelGraph, SkelGraphFile, SkelIk, SkelJoint, SkelMorph, SkelPlayer, SkelRig,
    SkelRootMotion,
};

/// Observer: marks a character whose scene instance is ready.
pub(crate) fn mark_scene_ready(ready: On<WorldInstanceReady>, mut commands: Commands) {
    if let Ok(mut entity) = commands.get_entity(ready.entity) {
        entity.insert(SkelSceneReady);
    }
}

type NeedsRig = (Without<SkelRigHandle>, Without<SkelBindError>);

/// Starts loading each new character's rig from the file its scene came from.
pub(crate) fn request_rigs(
    mut commands: Commands,
    server: Res<AssetServer>,
    rigs: Res<Assets<SkelRig>>,
    mut files: ResMut<RigFiles>,
    characters: Query<(Entity, &SkelPlayer, Option<&WorldAssetRoot>), NeedsRig>,
) {
    for (entity, player, root) in &characters {
        let file = match (player.rig_file(), root) {
            (Some(file), _) => Some(file.clone()),
            (None, Some(root)) => server
                .get_path(root.0.id())
                .map(|path| path.without_label().into_owned()),
            (None, None) => None,
        };
        let handle = match (player.rig_handle(), file) {
            (Some(rig), _) => Some(rig.clone()),
            (None, Some(file)) => Some(files.rig_of(file, player.retarget(), &server, &rigs)),
            (None, None) => None,
        };
        match handle {
            Some(handle) => {
                commands.entity(entity).insert(SkelRigHandle(handle));
            }
            None => fail(&mut commands, entity, SkelBevyError::NoRigSource(entity)),
        }
    }
}

type Unbound = (With<SkelSceneReady>, Without<SkelBindError>);

/// A character's components that binding reads.
type Character<'a> = (
    Entity,
    &'a mut SkelPlayer,
    &'a SkelRigHandle,
    Option<&'a SkelRootMotion>,
    Option<&'a SkelGraph>,
    Option<&'a SkelIk>,
);

/// The asset stores binding waits on.
type Loaded<'w> = (
    Res<'w, AssetServer>,
    Res<'w, RigFiles>,
    Res<'w, Assets<SkelRig>>,
    Res<'w, Assets<SkelGraphFile>>,
);

/// Graphs compiled against rigs, once per (graph file, rig) pair; a file that changes is
/// dropped here by [`reload_graphs`].
#[derive(Resource, Debug, Default)]
pub(crate) struct CompiledGraphs(HashMap<(AssetId<SkelGraphFile>, AssetId<SkelRig>), Arc<Graph>>);

/// Characters whose graph file changed (edited on disk under bevy's `file_watcher`, or
/// replaced through `Assets::get_mut`/`insert`) are bound again with the new graph on the
/// next frame: parameters, states and clocks start over, the joints keep their last pose
/// until then. A character whose graph had failed tries again; one whose new graph fails
/// gets a [`SkelBindError`] and keeps its last pose.
pub(crate) fn reload_graphs(
    mut commands: Commands,
    mut changes: MessageReader<AssetEvent<SkelGraphFile>>,
    mut compiled: ResMut<CompiledGraphs>,
    mut characters: Query<(Entity, &SkelGraph, &mut SkelPlayer, Option<&SkelBindError>)>,
) {
    for change in changes.read() {
        let AssetEvent::Modified { id } = *change else {
            continue;
        };
        compiled.0.retain(|(file, _), _| *file != id);
        for (entity, graph, mut player, failed) in &mut characters {
            if graph.file().id() != id {
                continue;
            }
            player.unbind();
            if failed.is_some_and(|f| {
                matches!(f.0, SkelBevyError::Graph(_) | SkelBevyError::GraphLoad(_))
            }) {
                commands.entity(entity).remove::<SkelBindError>();
            }
        }
    }
}

/// Binds every character whose scene is ready and whose rig (and graph) has loaded.
pub(crate) fn bind_characters(
    mut commands: Commands,
    (server, files, rigs, graphs): Loaded,
    mut compiled: ResMut<CompiledGraphs>,
    mut characters: Query<Character, Unbound>,
    children: Query<&Children>,
    names: Query<&Name>,
    parents: Query<&ChildOf>,
) {
    for (entity, mut player, handle, root_motion, graph, ik) in &mut characters {
        if player.is_bound() {
            continue;
        }
        let Some(rig) = rigs.get(&handle.0) else {
            if let Some(e) = files.failure(handle.0.id()) {
                fail(&mut commands, entity, SkelBevyError::RigLoad(e.to_owned()));
            }
            continue;
        };
        let (skel_rig, rig) = (rig, rig.rig());
        let loaded = (&*server, &*graphs);
        let graph = match graph.map(|g| graph_of(g, handle, rig, loaded, &mut compiled)) {
            None => None,
            Some(Ok(Some(graph))) => Some(graph),
            Some(Ok(None)) => continue,
            Some(Err(e)) => {
                fail(&mut commands, entity, e);
                continue;
            }
        };
        let joints = match find_joints(entity, rig.data(), &children, &names) {
            Ok(joints) => joints,
            Err(e) => {
                fail(&mut commands, entity, e);
                continue;
            }
        };
        let frame = rig
            .data()
            .nodes
            .iter()
            .position(|n| n.parent.is_none())
            .and_then(|root| joints.get(root).copied().flatten())
            .and_then(|e| parents.get(e).ok())
            .map(ChildOf::parent);
        let bound = setup(rig.data(), root_motion, ik, graph.as_ref())
            .and_then(|setup| player.bind(skel_rig, &joints, setup, frame, BoundIk::of(ik)));
        if let Err(e) = bound {
            fail(&mut commands, entity, e);
            continue;
        }
        for (binding, b) in rig.data().morph_bindings.iter().enumerate() {
            if let Some(&Some(mesh)) = joints.get(b.node) {
                commands.entity(mesh).insert(SkelMorph {
                    character: entity,
                    binding,
                });
            }
        }
        for (node, joint) in joints.into_iter().enumerate() {
            if let Some(joint) = joint {
                commands.entity(joint).insert(SkelJoint {
                    character: entity,
                    node,
                });
            }
        }
    }
}

/// The character's graph compiled against `rig`: `Ok(None)` while the file is loading.
fn graph_of(
    graph: &SkelGraph,
    rig_handle: &SkelRigHandle,
    rig: &Rig,
    (server, graphs): (&AssetServer, &Assets<SkelGraphFile>),
    compiled: &mut CompiledGraphs,
) -> Result<Option<Arc<Graph>>, SkelBevyError> {
    let key = (graph.file().id(), rig_handle.0.id());
    if let Some(graph) = compiled.0.get(&key) {
        return Ok(Some(Arc::clone(graph)));
    }
    let Some(file) = graphs.get(graph.file()) else {
        return match server.load_state(graph.file().id()) {
            LoadState::Failed(e) => Err(SkelBevyError::GraphLoad(e.to_string())),
            _ => Ok(None),
        };
    };
    let graph = Graph::compile(file.def(), rig)?;
    compiled.0.insert(key, Arc::clone(&graph));
    Ok(Some(graph))
}

/// Root motion, IK jobs and the graph, resolved against the rig's nodes.
fn setup<'a>(
    data: &AnimationData,
    root_motion: Option<&SkelRootMotion>,
    ik: Option<&SkelIk>,
    graph: Option<&'a Arc<Graph>>,
) -> Result<Setup<'a>, SkelBevyError> {
    let root_motion = match root_motion {
        Some(config) => {
            let node = data
                .nodes
                .iter()
                .position(|n| n.name == config.node)
                .ok_or_else(|| SkelBevyError::NoSuchNode(config.node.clone()))?;
            Some(RootMotion {
                node,
                translation: config.translation,
                yaw: config.yaw,
            })
        }
        None => None,
    };
    Ok(Setup {
        root_motion,
        ik: ik
            .map(|ik| ik.resolve(data))
            .transpose()?
            .unwrap_or_default(),
        graph,
    })
}

/// Logs `error` and marks the character as failed.
fn fail(commands: &mut Commands, entity: Entity, error: SkelBevyError) {
    tracing::error!("skel-bevy: character {entity}: {error}");
    commands.entity(entity).insert(SkelBindError(error));
}

/// The name bevy's glTF loader gives node `index`'s entity.
fn entity_name(data: &AnimationData, index: usize) -> String {
    match data.nodes.get(index).map(|n| n.name.as_str()) {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => format!("GltfNode{index}"),
    }
}

/// The entity of every node, matched by name level by level from the scene's roots (the
/// character's grandchildren: character → scene root → glTF root nodes). Every node a clip
/// animates or a skin uses must be found.
fn find_joints(
    character: Entity,
    data: &AnimationData,
    children: &Query<&Children>,
    names: &Query<&Name>,
) -> Result<Vec<Option<Entity>>, SkelBevyError> {
    let n = data.nodes.len();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, node) in data.nodes.iter().enumerate() {
        match node.parent {
            Some(p) if p < n => kids[p].push(i),
            _ => roots.push(i),
        }
    }
    let scene_roots: Vec<Entity> = children
        .get(character)
        .into_iter()
        .flat_map(|c| c.iter())
        .flat_map(|scene| children.get(scene).into_iter().flat_map(|c| c.iter()))
        .collect();
    let mut found = vec![None; n];
    let mut work = vec![(roots, scene_roots)];
    while let Some((nodes, candidates)) = work.pop() {
        let mut taken = vec![false; candidates.len()];
        for node in nodes {
            let want = entity_name(data, node);
            let hit = candidates
                .iter()
                .enumerate()
                .find(|&(k, &e)| !taken[k] && names.get(e).is_ok_and(|name| name.as_str() == want));
            if let Some((k, &e)) = hit {
                taken[k] = true;
                found[node] = Some(e);
                let next: Vec<Entity> = children.get(e).map(|c| c.to_vec()).unwrap_or_default();
                work.push((kids[node].clone(), next));
            }
        }
    }
    let animated = data
        .clips
        .iter()
        .flat_map(|c| c.channels.iter().map(|ch| ch.node));
    let skinned = data.skeletons.iter().flat_map(|s| s.joints.iter().copied());
    for node in animated.chain(skinned) {
        if found.get(node).is_some_and(Option::is_none) {
            return Err(SkelBevyError::MissingJoint {
                character,
                node,
                name: entity_name(data, node),
            });
        }
    }
    Ok(found)
}
