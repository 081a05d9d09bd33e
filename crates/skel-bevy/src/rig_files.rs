//! One [`SkelRig`] per glTF file: read through bevy's asset reader on the IO task pool (the
//! same bytes bevy's glTF loader reads; a second loader for `.glb` would take bevy's place),
//! compiled there, shared by every character spawned from the file.

use std::collections::HashMap;

use bevy::asset::AssetPath;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};

use crate::{SkelBevyError, SkelRig};

/// A rig being read and compiled.
type Reading = Task<Result<SkelRig, SkelBevyError>>;

/// The rig of each file asked for, the reads under way and the reads that failed.
#[derive(Resource, Default)]
pub(crate) struct RigFiles {
    by_path: HashMap<AssetPath<'static>, Handle<SkelRig>>,
    reading: Vec<(Handle<SkelRig>, Reading)>,
    failed: HashMap<AssetId<SkelRig>, String>,
}

impl RigFiles {
    /// The rig of `path` (a file, no label): shared if asked for before, else reserved and
    /// read in the background.
    pub(crate) fn rig_of(
        &mut self,
        path: AssetPath<'static>,
        server: &AssetServer,
        rigs: &Assets<SkelRig>,
    ) -> Handle<SkelRig> {
        if let Some(handle) = self.by_path.get(&path) {
            return handle.clone();
        }
        let handle = rigs.reserve_handle();
        let server = server.clone();
        let file = path.clone();
        let task = IoTaskPool::get().spawn(async move { read_rig(&server, &file).await });
        self.reading.push((handle.clone(), task));
        self.by_path.insert(path, handle.clone());
        handle
    }

    /// Why the rig `id` could not be read, if it failed.
    pub(crate) fn failure(&self, id: AssetId<SkelRig>) -> Option<&str> {
        self.failed.get(&id).map(String::as_str)
    }
}

async fn read_rig(
    server: &AssetServer,
    path: &AssetPath<'static>,
) -> Result<SkelRig, SkelBevyError> {
    let source = server
        .get_source(path.source())
        .map_err(|e| SkelBevyError::RigLoad(e.to_string()))?;
    let mut reader = source
        .reader()
        .read(path.path())
        .await
        .map_err(|e| SkelBevyError::RigLoad(format!("{path}: {e}")))?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).await?;
    SkelRig::from_bytes(&bytes)
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
