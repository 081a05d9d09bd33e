//! skel-gpu
