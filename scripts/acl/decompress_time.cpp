// Times ACL 2.1's decompress_tracks (a whole pose of local transforms) on one .acl.sjson clip
// compressed at ACL's default settings: ns per bone per pose, over every 1/60 s of the clip,
// repeated. Warm caches (one clip, one pose buffer): the best case, not ACL's cold-cache bench.
// Built by decompress_time.sh in /tmp; never in CI.
// usage: decompress_time CLIP.acl.sjson [ROUNDS]
#include "acl/core/ansi_allocator.h"
#include "acl/compression/compress.h"
#include "acl/decompression/decompress.h"
#include "acl/io/clip_reader.h"
#include <rtm/qvvf.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct pose_writer : acl::track_writer {
  std::vector<rtm::qvvf>* pose;
  void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 r) { (*pose)[i].rotation = r; }
  void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t) { (*pose)[i].translation = t; }
  void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s) { (*pose)[i].scale = s; }
};

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: decompress_time CLIP [ROUNDS]\n"); return 2; }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2000;
  std::ifstream f(argv[1]);
  std::stringstream ss; ss << f.rdbuf();
  const std::string text = ss.str();
  acl::ansi_allocator allocator;
  acl::clip_reader reader(allocator, text.c_str(), text.size());
  acl::sjson_raw_clip raw;
  if (!reader.read_raw_clip(raw)) { std::fprintf(stderr, "cannot read %s\n", argv[1]); return 1; }
  acl::qvvf_transform_error_metric metric;
  acl::compression_settings settings = acl::get_default_compression_settings();
  settings.error_metric = &metric;
  acl::output_stats stats;
  acl::compressed_tracks* out = nullptr;
  const acl::error_result r = acl::compress_track_list(allocator, raw.track_list, settings, out, stats);
  if (r.any()) { std::fprintf(stderr, "compress: %s\n", r.c_str()); return 1; }
  acl::decompression_context<acl::default_transform_decompression_settings> ctx;
  ctx.initialize(*out);
  const uint32_t bones = out->get_num_tracks();
  std::vector<rtm::qvvf> pose(bones);
  pose_writer w; w.pose = &pose;
  const float duration = out->get_duration();
  std::vector<float> times;
  for (float t = 0.0F; t <= duration; t += 1.0F / 60.0F) times.push_back(t);
  float sink = 0.0F;
  auto run = [&](int n) {
    for (int k = 0; k < n; ++k)
      for (float t : times) {
        ctx.seek(t, acl::sample_rounding_policy::none);
        ctx.decompress_tracks(w);
        sink += rtm::vector_get_x(pose[bones - 1].translation);
      }
  };
  run(rounds / 10 + 1);
  const auto start = std::chrono::steady_clock::now();
  run(rounds);
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s bones %u poses %zu ns_per_bone %.2f bytes %u (%g)\n", argv[1], bones,
              times.size() * rounds, ns / (double(times.size()) * rounds * bones), out->get_size(), sink);
  allocator.deallocate(out, out->get_size());
  return 0;
}
