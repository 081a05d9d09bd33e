//! One [`SkelRig`] per glTF file: read through bevy's asset reader on the IO task pool (the
//! same bytes bevy's glTF loader reads, external buffers from the same source; a second
//! loader for `.glb` would take bevy's place), compiled there, shared by every character
//! spawned from the file.

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::asset::AssetPath;
use bevy::asset::io::embedded::EmbeddedAssetRegistry;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};
use bevy::world_serialization::WorldAssetRoot;

use crate::bind_state::{SkelBindError, SkelRigHandle, SkelSceneReady};
use crate::gltf_bytes::read_self_contained;
use crate::rig_asset::asset_from_bytes;
use crate::{SkelBevyError, SkelRetarget, SkelRig};

/// What a rig is built from: a file, and optionally another file's clips retargeted onto it
/// (told apart by source, mapping and options).
type RigKey = (AssetPath<'static>, Option<(AssetPath<'static>, String)>);

/// A rig being read and compiled.
type Reading = Task<Result<SkelRig, SkelBevyError>>;

/// The rig of each file asked for, the reads under way and the reads that failed.
#[derive(Resource, Default)]
pub(crate) struct RigFiles {
    by_path: HashMap<RigKey, Handle<SkelRig>>,
    reading: Vec<(Handle<SkelRig>, Reading)>,
    failed: HashMap<AssetId<SkelRig>, String>,
    /// Where each rig's scene copy was put (`embedded://skel_bevy/…`).
    copies: HashMap<AssetId<SkelRig>, AssetPath<'static>>,
}

impl RigFiles {
    /// The rig of `path` (a file, no label), with `retarget`'s clips added: shared if asked
    /// for before, else reserved and read (and retargeted) in the background.
    pub(crate) fn rig_of(
        &mut self,
        path: AssetPath<'static>,
        retarget: Option<&SkelRetarget>,
        server: &AssetServer,
        rigs: &Assets<SkelRig>,
    ) -> Handle<SkelRig> {
        let key = (path.clone(), retarget.map(SkelRetarget::key));
        if let Some(handle) = self.by_path.get(&key) {
            return handle.clone();
        }
        let handle = rigs.reserve_handle();
        let server = server.clone();
        let retarget = retarget.cloned();
        let task = IoTaskPool::get().spawn(async move {
            let bytes = read_self_contained(&server, &path).await?;
            match retarget {
                Some(r) => {
                    let target = asset_from_bytes(&bytes)?;
                    let source = read_self_contained(&server, &r.source).await?;
                    let data = r.apply(&asset_from_bytes(&source)?, &target)?;
                    let rig = SkelRig::from_data(data)?.with_scene_copy_of(&bytes);
                    Ok(match target.vrm() {
                        Some(vrm) => rig.with_vrm(vrm),
                        None => rig,
                    })
                }
                None => SkelRig::from_bytes(&bytes),
            }
        });
        self.reading.push((handle.clone(), task));
        self.by_path.insert(key, handle.clone());
        handle
    }

    /// Why the rig `id` could not be read, if it failed.
    pub(crate) fn failure(&self, id: AssetId<SkelRig>) -> Option<&str> {
        self.failed.get(&id).map(String::as_str)
    }
}

/// Stores the rigs whose read finished; records (and logs) the ones that failed.
pub(crate) fn finish_rig_reads(mut files: ResMut<RigFiles>, mut rigs: ResMut<Assets<SkelRig>>) {
    let files = &mut *files;
    let (reading, failed) = (&mut files.reading, &mut files.failed);
    reading.retain_mut(|(handle, task)| {
        let Some(result) = check_ready(task) else {
            return true;
        };
        match result {
            Ok(rig) => {
                if let Err(e) = rigs.insert(handle.id(), rig) {
                    failed.insert(handle.id(), e.to_string());
                }
            }
            Err(e) => {
                tracing::error!("skel-bevy: rig: {e}");
                failed.insert(handle.id(), e.to_string());
            }
        }
        false
    });
}

/// A character spawned from a file bevy's glTF loader refuses (one that requires skel's
/// stored-clip extension) and respawned from its rig's scene copy.
#[derive(Component, Debug, Clone, Copy, Default)]
pub(crate) struct FromSceneCopy;

/// Characters whose rig's file needs a scene copy (see [`SkelRig::from_bytes`]) are spawned
/// again from that copy, which is put once per rig in bevy's `embedded://` asset source
/// (under `skel_bevy/`, named after the file) and loaded by bevy's own glTF loader with the
/// app's settings; the label (`Scene0`, …) is the character's own.
pub(crate) fn respawn_from_scene_copies(
    mut commands: Commands,
    server: Res<AssetServer>,
    embedded: Option<Res<EmbeddedAssetRegistry>>,
    rigs: Res<Assets<SkelRig>>,
    mut files: ResMut<RigFiles>,
    characters: Query<(Entity, &WorldAssetRoot, &SkelRigHandle), AwaitingCopy>,
) {
    let Some(embedded) = embedded else {
        return;
    };
    for (entity, root, handle) in &characters {
        let Some(copy) = rigs.get(&handle.0).and_then(SkelRig::scene_copy) else {
            continue;
        };
        let Some(scene) = server.get_path(root.0.id()) else {
            continue;
        };
        let copy_path = files
            .copies
            .entry(handle.0.id())
            .or_insert_with(|| {
                let inside = PathBuf::from("skel_bevy")
                    .join(scene.path())
                    .with_extension(copy.extension);
                embedded.insert_asset(inside.clone(), &inside, copy.bytes.clone());
                AssetPath::from_path_buf(inside)
                    .with_source("embedded")
                    .into_owned()
            })
            .clone();
        let copy_scene = match scene.label() {
            Some(label) => copy_path.with_label(label.to_owned()),
            None => copy_path,
        };
        commands
            .entity(entity)
            .insert((WorldAssetRoot(server.load(copy_scene)), FromSceneCopy));
    }
}

/// Characters not yet spawned or respawned from a scene copy.
type AwaitingCopy = (
    Without<SkelSceneReady>,
    Without<SkelBindError>,
    Without<FromSceneCopy>,
);
