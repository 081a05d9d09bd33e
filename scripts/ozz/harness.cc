// skel's pose-pipeline frame, done with ozz-animation 0.16: for each of N characters, sample
// its animation at its own time (SamplingJob, one context per character), local -> model
// (LocalToModelJob), then the skinning matrices (model x inverse bind, one per bone of the
// skin). The characters start staggered evenly through the clip and advance 1/60 s a frame,
// looping, as `skel_anim::tick_all` does for skel's driver (crates/skel-gltf/examples/
// pose_frames.rs). Built and run by scripts/ozz/build.sh and `cargo xtask bench --vs-ozz`.
//
//   harness DIR CHARACTERS WARMUP FRAMES
//
// DIR holds skeleton.ozz, skin.txt (written by `pose_frames skin`: "clip NAME", then one line
// per bone: 16 floats of its inverse bind matrix, column-major, then the joint's name) and
// NAME.ozz. Prints one line: frames, characters, joints, bones, the wall-clock time of the
// FRAMES timed frames in ns per frame, and a checksum of the last skinning matrices.
//
//   harness --model DIR TIMES OUT
//
// The error measurement's mode (`cargo xtask bench --shell-error`, docs/benchmarks.md): samples
// the same animation at each time of the text file TIMES (seconds, one a line; the ratio is
// time / duration, clamped to [0, 1] as SamplingJob clamps it), runs LocalToModelJob, and
// writes OUT (text: "duration D", "bytes B" (the runtime animation's size, Animation::size),
// "joints N", then per joint "NAME\tPARENT") and OUT.bin (per
// time, per joint in skeleton order, its model matrix: 16 little-endian f32, column-major).
// Model space is ozz's: the skeleton's roots (gltf2ozz's skin roots) sit at the identity.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"

namespace {

template <typename T>
bool Load(const std::string& path, T* out) {
  ozz::io::File file(path.c_str(), "rb");
  if (!file.opened()) {
    std::fprintf(stderr, "harness: cannot open %s\n", path.c_str());
    return false;
  }
  ozz::io::IArchive archive(&file);
  if (!archive.TestTag<T>()) {
    std::fprintf(stderr, "harness: %s is not the expected ozz object\n", path.c_str());
    return false;
  }
  archive >> *out;
  return true;
}

struct Character {
  ozz::unique_ptr<ozz::animation::SamplingJob::Context> context;
  std::vector<ozz::math::SoaTransform> locals;
  std::vector<ozz::math::Float4x4> models;
  std::vector<ozz::math::Float4x4> skinning;
  float ratio = 0.f;
};

// The skinning matrices of one character: model x inverse bind per bone. Not inlined, so
// that a profile names it.
__attribute__((noinline)) void SkinningMatrices(const std::vector<ozz::math::Float4x4>& models,
                                                const std::vector<int>& remap,
                                                const std::vector<ozz::math::Float4x4>& ibm,
                                                std::vector<ozz::math::Float4x4>* out) {
  const size_t n = remap.size();
  for (size_t k = 0; k < n; ++k) {
    (*out)[k] = models[remap[k]] * ibm[k];
  }
}

// One frame: every character's clock, sampling, local -> model and skinning matrices.
__attribute__((noinline)) void Frame(const ozz::animation::Skeleton& skeleton,
                                     const ozz::animation::Animation& animation,
                                     const std::vector<int>& remap,
                                     const std::vector<ozz::math::Float4x4>& ibm,
                                     float step, std::vector<Character>* characters) {
  for (Character& c : *characters) {
    c.ratio += step;
    if (c.ratio > 1.f) {
      c.ratio -= 1.f;
    }
    ozz::animation::SamplingJob sampling;
    sampling.animation = &animation;
    sampling.context = c.context.get();
    sampling.ratio = c.ratio;
    sampling.output = ozz::make_span(c.locals);
    if (!sampling.Run()) {
      std::abort();
    }
    ozz::animation::LocalToModelJob ltm;
    ltm.skeleton = &skeleton;
    ltm.input = ozz::make_span(c.locals);
    ltm.output = ozz::make_span(c.models);
    if (!ltm.Run()) {
      std::abort();
    }
    SkinningMatrices(c.models, remap, ibm, &c.skinning);
  }
}

// `--model DIR TIMES OUT`: model matrices at the given times (see the header).
int DumpModel(const std::string& dir, const std::string& times_path, const std::string& out) {
  std::ifstream skin(dir + "/skin.txt");
  std::string line;
  if (!std::getline(skin, line) || line.rfind("clip ", 0) != 0) {
    std::fprintf(stderr, "harness: %s/skin.txt must start with \"clip NAME\"\n", dir.c_str());
    return 1;
  }
  ozz::animation::Skeleton skeleton;
  ozz::animation::Animation animation;
  if (!Load(dir + "/skeleton.ozz", &skeleton) ||
      !Load(dir + "/" + line.substr(5) + ".ozz", &animation)) {
    return 1;
  }
  if (animation.num_tracks() != skeleton.num_joints()) {
    std::fprintf(stderr, "harness: %d tracks for %d joints\n", animation.num_tracks(),
                 skeleton.num_joints());
    return 1;
  }
  std::vector<float> times;
  std::ifstream in(times_path);
  for (float t; in >> t;) {
    times.push_back(t);
  }
  std::FILE* text = std::fopen(out.c_str(), "w");
  std::FILE* bin = std::fopen((out + ".bin").c_str(), "wb");
  if (text == nullptr || bin == nullptr) {
    std::fprintf(stderr, "harness: cannot write %s\n", out.c_str());
    return 1;
  }
  const auto names = skeleton.joint_names();
  const auto parents = skeleton.joint_parents();
  std::fprintf(text, "duration %.9g\nbytes %zu\njoints %d\n", animation.duration(),
               animation.size(), skeleton.num_joints());
  for (int j = 0; j < skeleton.num_joints(); ++j) {
    std::fprintf(text, "%s\t%d\n", names[j], static_cast<int>(parents[j]));
  }
  ozz::animation::SamplingJob::Context context(animation.num_tracks());
  std::vector<ozz::math::SoaTransform> locals(skeleton.num_soa_joints());
  std::vector<ozz::math::Float4x4> models(skeleton.num_joints());
  for (const float t : times) {
    ozz::animation::SamplingJob sampling;
    sampling.animation = &animation;
    sampling.context = &context;
    sampling.ratio = t / animation.duration();
    sampling.output = ozz::make_span(locals);
    ozz::animation::LocalToModelJob ltm;
    ltm.skeleton = &skeleton;
    ltm.input = ozz::make_span(locals);
    ltm.output = ozz::make_span(models);
    if (!sampling.Run() || !ltm.Run()) {
      std::fprintf(stderr, "harness: sampling at %g failed\n", t);
      return 1;
    }
    for (const ozz::math::Float4x4& m : models) {
      float v[16];
      for (int c = 0; c < 4; ++c) {
        ozz::math::StorePtrU(m.cols[c], v + 4 * c);
      }
      std::fwrite(v, sizeof(float), 16, bin);
    }
  }
  std::fclose(text);
  return std::fclose(bin) == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--model") == 0) {
    return DumpModel(argv[2], argv[3], argv[4]);
  }
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: harness DIR CHARACTERS WARMUP FRAMES | harness --model DIR TIMES OUT\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int n = std::atoi(argv[2]);
  const int warmup = std::atoi(argv[3]);
  const int frames = std::atoi(argv[4]);
  if (n <= 0 || warmup < 0 || frames < 0) {
    std::fprintf(stderr, "harness: bad counts\n");
    return 2;
  }

  std::ifstream skin(dir + "/skin.txt");
  std::string line;
  std::string clip;
  if (!std::getline(skin, line) || line.rfind("clip ", 0) != 0) {
    std::fprintf(stderr, "harness: %s/skin.txt must start with \"clip NAME\"\n", dir.c_str());
    return 1;
  }
  clip = line.substr(5);

  ozz::animation::Skeleton skeleton;
  ozz::animation::Animation animation;
  if (!Load(dir + "/skeleton.ozz", &skeleton) || !Load(dir + "/" + clip + ".ozz", &animation)) {
    return 1;
  }
  if (animation.num_tracks() != skeleton.num_joints()) {
    std::fprintf(stderr, "harness: %d tracks for %d joints\n", animation.num_tracks(),
                 skeleton.num_joints());
    return 1;
  }

  // Bones: inverse bind matrices and the ozz joint each one follows (by name).
  std::vector<int> remap;
  std::vector<ozz::math::Float4x4> ibm;
  while (std::getline(skin, line)) {
    std::istringstream in(line);
    float m[16];
    for (float& v : m) {
      in >> v;
    }
    std::string rest, name;
    std::getline(in, rest, '\t');  // up to the tab before the name
    std::getline(in, name);
    if (!in && !in.eof()) {
      std::fprintf(stderr, "harness: bad bone line: %s\n", line.c_str());
      return 1;
    }
    int joint = -1;
    const auto names = skeleton.joint_names();
    for (size_t j = 0; j < names.size(); ++j) {
      if (name == names[j]) {
        joint = static_cast<int>(j);
        break;
      }
    }
    if (joint < 0) {
      std::fprintf(stderr, "harness: no joint named \"%s\" in the ozz skeleton\n", name.c_str());
      return 1;
    }
    ozz::math::Float4x4 f;
    for (int c = 0; c < 4; ++c) {
      f.cols[c] = ozz::math::simd_float4::Load(m[4 * c], m[4 * c + 1], m[4 * c + 2], m[4 * c + 3]);
    }
    remap.push_back(joint);
    ibm.push_back(f);
  }

  std::vector<Character> characters(n);
  for (int i = 0; i < n; ++i) {
    Character& c = characters[i];
    c.context = ozz::make_unique<ozz::animation::SamplingJob::Context>(animation.num_tracks());
    c.locals.resize(skeleton.num_soa_joints());
    c.models.resize(skeleton.num_joints());
    c.skinning.resize(remap.size());
    c.ratio = static_cast<float>(i) / static_cast<float>(n);
  }
  const float step = (1.f / 60.f) / animation.duration();

  for (int f = 0; f < warmup; ++f) {
    Frame(skeleton, animation, remap, ibm, step, &characters);
  }
  const auto start = std::chrono::steady_clock::now();
  for (int f = 0; f < frames; ++f) {
    Frame(skeleton, animation, remap, ibm, step, &characters);
  }
  const auto end = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(end - start).count();

  float checksum = 0.f;
  for (const Character& c : characters) {
    for (const ozz::math::Float4x4& m : c.skinning) {
      checksum += ozz::math::GetX(m.cols[3]);
    }
  }
  std::printf("frames %d characters %d joints %d bones %zu ns_per_frame %.1f checksum %g\n",
              frames, n, skeleton.num_joints(), remap.size(),
              frames > 0 ? ns / frames : 0.0, checksum);
  return 0;
}
