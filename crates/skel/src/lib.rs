//! skel
