// ozz-animation 0.16's two-bone IK (IKTwoBoneJob) on a fixed 3-joint arm, the reference for
// skel's TwoBoneIk (docs/bench-ik.md). crates/skel-anim/examples/two_bone_solves.rs does the
// same with skel; scripts/ozz/two_bone.sh builds and measures both. Built by
// scripts/ozz/build.sh beside the harness.
//
//   two_bone run WARMUP SOLVES
//
// WARMUP + SOLVES solves, the target cycling through the 8 of kTargets (5 within reach, 3
// not), pole +z, mid axis -z (the arm's hinge: a positive turn opens the elbow), weight 1,
// soften 1, twist 0. A solve is what a user does: set up and run the job from the rest pose's
// model matrices, then multiply its two corrections onto the start and mid joints' local
// rotations (as ozz's two_bone_ik sample does). Prints "solves N ns_per_solve T reached R
// checksum C": T the wall-clock time of the SOLVES timed solves, R how many of them reached,
// C the sum of every corrected rotation's components (so that nothing is optimised away).
//
//   two_bone check
//
// One solve per target from the rest pose, then the arm's model matrices again from the
// corrected locals: one line per target, "target I reached R mid X Y Z end X Y Z" (model
// space), for scripts/ozz/two_bone.sh to compare with skel's.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/base/maths/quaternion.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/vec_float.h"

namespace {

// The arm's locals (the start joint's parent is the model frame): the shoulder at
// (0.2, 1.4, 0.1) turned 0.3 rad about y, an upper arm of 0.3 along its x, the elbow bent
// 0.4 rad about z, a forearm of 0.25. Reach: 0.05 to 0.55 from the shoulder.
const ozz::math::Float3 kTranslations[3] = {
    {0.2f, 1.4f, 0.1f}, {0.3f, 0.f, 0.f}, {0.25f, 0.f, 0.f}};
const float kAngles[3] = {0.3f, 0.4f, 0.f};
const ozz::math::Float3 kAxes[3] = {{0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}, {0.f, 0.f, 1.f}};

// Model-space targets: the first 5 within reach, the last 3 beyond it.
const float kTargets[8][3] = {
    {0.55f, 1.5f, 0.1f}, {0.4f, 1.1f, 0.3f},  {0.1f, 1.7f, 0.35f}, {0.3f, 1.35f, -0.2f},
    {0.45f, 1.6f, 0.4f}, {1.0f, 1.5f, 0.1f},  {0.2f, 0.6f, 0.3f},  {-0.5f, 1.9f, -0.3f}};

struct Arm {
  ozz::math::SimdQuaternion rotations[3];
  ozz::math::Float4x4 models[3];
};

ozz::math::SimdQuaternion Rotation(int joint) {
  const ozz::math::Quaternion q =
      ozz::math::Quaternion::FromAxisAngle(kAxes[joint], kAngles[joint]);
  return {ozz::math::simd_float4::Load(q.x, q.y, q.z, q.w)};
}

// Model matrices from the locals: model[j] = model[j - 1] * T(t_j) * R(r_j).
void Models(Arm* arm) {
  for (int j = 0; j < 3; ++j) {
    const ozz::math::Float4x4 local = ozz::math::Float4x4::FromAffine(
        ozz::math::simd_float4::Load3PtrU(&kTranslations[j].x), arm->rotations[j].xyzw,
        ozz::math::simd_float4::one());
    arm->models[j] = j == 0 ? local : arm->models[j - 1] * local;
  }
}

Arm Rest() {
  Arm arm;
  for (int j = 0; j < 3; ++j) {
    arm.rotations[j] = Rotation(j);
  }
  Models(&arm);
  return arm;
}

// One solve: the job from the rest pose's model matrices, its corrections multiplied onto the
// local rotations of the start and mid joints. False when the job refuses its inputs.
inline bool Solve(const Arm& rest, ozz::math::SimdFloat4 target, ozz::math::SimdQuaternion* start,
                  ozz::math::SimdQuaternion* mid, bool* reached) {
  ozz::math::SimdQuaternion start_correction;
  ozz::math::SimdQuaternion mid_correction;
  ozz::animation::IKTwoBoneJob job;
  job.target = target;
  job.pole_vector = ozz::math::simd_float4::z_axis();
  job.mid_axis = -ozz::math::simd_float4::z_axis();
  job.weight = 1.f;
  job.soften = 1.f;
  job.twist_angle = 0.f;
  job.start_joint = &rest.models[0];
  job.mid_joint = &rest.models[1];
  job.end_joint = &rest.models[2];
  job.start_joint_correction = &start_correction;
  job.mid_joint_correction = &mid_correction;
  job.reached = reached;
  if (!job.Run()) {
    return false;
  }
  *start = rest.rotations[0] * start_correction;
  *mid = rest.rotations[1] * mid_correction;
  return true;
}

int Check() {
  const Arm rest = Rest();
  for (int i = 0; i < 8; ++i) {
    Arm arm = rest;
    bool reached = false;
    if (!Solve(rest, ozz::math::simd_float4::Load3PtrU(kTargets[i]), &arm.rotations[0],
               &arm.rotations[1], &reached)) {
      std::fprintf(stderr, "two_bone: IKTwoBoneJob failed on target %d\n", i);
      return 1;
    }
    Models(&arm);
    float mid[4];
    float end[4];
    ozz::math::StorePtrU(arm.models[1].cols[3], mid);
    ozz::math::StorePtrU(arm.models[2].cols[3], end);
    std::printf("target %d reached %d mid %.6f %.6f %.6f end %.6f %.6f %.6f\n", i, reached ? 1 : 0,
                mid[0], mid[1], mid[2], end[0], end[1], end[2]);
  }
  return 0;
}

int Run(int warmup, int solves) {
  const Arm rest = Rest();
  ozz::math::SimdFloat4 targets[8];
  for (int i = 0; i < 8; ++i) {
    targets[i] = ozz::math::simd_float4::Load3PtrU(kTargets[i]);
  }
  ozz::math::SimdFloat4 sum = ozz::math::simd_float4::zero();
  int reached_count = 0;
  std::chrono::steady_clock::time_point begin = std::chrono::steady_clock::now();
  for (int i = 0; i < warmup + solves; ++i) {
    if (i == warmup) {
      begin = std::chrono::steady_clock::now();
      reached_count = 0;
    }
    ozz::math::SimdQuaternion start;
    ozz::math::SimdQuaternion mid;
    bool reached = false;
    if (!Solve(rest, targets[i & 7], &start, &mid, &reached)) {
      std::fprintf(stderr, "two_bone: IKTwoBoneJob failed\n");
      return 1;
    }
    sum = sum + start.xyzw + mid.xyzw;
    reached_count += reached ? 1 : 0;
  }
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - begin).count();
  float s[4];
  ozz::math::StorePtrU(sum, s);
  std::printf("solves %d ns_per_solve %.3f reached %d checksum %.6f\n", solves,
              solves > 0 ? ns / solves : 0.0, reached_count, s[0] + s[1] + s[2] + s[3]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "check") == 0) {
    return Check();
  }
  if (argc == 4 && std::strcmp(argv[1], "run") == 0) {
    const int warmup = std::atoi(argv[2]);
    const int solves = std::atoi(argv[3]);
    if (warmup >= 0 && solves >= 0) {
      return Run(warmup, solves);
    }
  }
  std::fprintf(stderr, "usage: two_bone run WARMUP SOLVES | two_bone check\n");
  return 2;
}
