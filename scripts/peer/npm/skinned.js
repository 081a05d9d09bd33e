// What both pages (check_page.js, bench_page.js) look for in a three.js scene.

/** Every SkinnedMesh under `root`, in traversal order. */
export function skinnedMeshes(root) {
  const out = [];
  root.traverse((o) => {
    if (o.isSkinnedMesh) out.push(o);
  });
  return out;
}
