//! One [`SkelRig`] per glTF file: read through bevy's asset reader on the IO task pool (the
//! same bytes bevy's glTF loader reads; a second loader for `.glb` would take bevy's place),
//! compiled there, shared by every character spawned from the file.

use std::collections::HashMap;

use bevy::asset::AssetPath;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{IoTaskPool, Task};

use crate::rig_asset::data_from_bytes;
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
            let data = data_from_bytes(&read_file(&server, &path).await?)?;
            let data = match retarget {
                Some(r) => {
                    let source = data_from_bytes(&read_file(&server, &r.source).await?)?;
                    r.apply(&source, &data)?
                }
                None => data,
            };
            SkelRig::from_data(data)
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

async fn read_file(
    server: &AssetServer,
    path: &AssetPath<'static>,
) -> Result<Vec<u8>, SkelBevyError> {
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
    Ok(bytes)
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
