//! skel-gltf
