//! Hook points where opt-in bone control (the `skel-bone-control` crate) changes the pose.

/// Applied by the controller to the TRS scratch buffer (see [`TRS_STRIDE`](crate::TRS_STRIDE)).
/// Held as `Option<Arc<dyn PoseHook>>`, `None` by default: without bone control a tick pays one
/// `None` check and this crate never names the crate that implements it.
pub trait PoseHook: Send + Sync + std::fmt::Debug {
    /// After the rest reset, before channels: position, rotation and scale overrides (a clip
    /// then wins on the components it animates).
    fn before_channels(&self, trs: &mut [f32]);
    /// After channels (and after blending): visibility, i.e. scale 0 on hidden bones — it beats
    /// animation.
    fn after_channels(&self, trs: &mut [f32]);
}
