//! skel-bone-control
