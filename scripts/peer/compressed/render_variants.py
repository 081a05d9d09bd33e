#!/usr/bin/env python3
"""Draws every original and its gltfpack / meshopt / Draco variants with `skel render` (the
same camera framing, lavapipe or any adapter) at 0, 1 and 2 s of the first clip (held at its
end when shorter),
and compares each variant's picture with its original's: pixels that differ by more than 8
levels in any channel, and the intersection over union of the drawn silhouettes. Standard
library only (a small PNG reader); never in CI (the variants are copies of the shared assets).

    bash scripts/peer/compressed/shared_variants.sh /tmp/skel-peer-variants
    cargo build --release -p skel-cli
    python3 scripts/peer/compressed/render_variants.py /tmp/skel-peer-variants [target/release/skel]
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """RGB(A) 8-bit, non-interlaced PNG -> (width, height, channels, rows of bytes)."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat, width = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and interlace == 0 and colour in (2, 6), (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if filt == 1:
                line[i] = (line[i] + a) & 255
            elif filt == 2:
                line[i] = (line[i] + b) & 255
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def compare(a, b):
    wa, ha, ca, ra = read_png(a)
    wb, hb, cb, rb = read_png(b)
    assert (wa, ha) == (wb, hb)
    bg_a, bg_b = ra[0][:3], rb[0][:3]
    differ = both = either = 0
    for y in range(ha):
        for x in range(wa):
            pa, pb = ra[y][x * ca:x * ca + 3], rb[y][x * cb:x * cb + 3]
            if max(abs(p - q) for p, q in zip(pa, pb)) > 8:
                differ += 1
            ink_a = max(abs(p - q) for p, q in zip(pa, bg_a)) > 24
            ink_b = max(abs(p - q) for p, q in zip(pb, bg_b)) > 24
            both += ink_a and ink_b
            either += ink_a or ink_b
    return differ, wa * ha, both / max(either, 1)


def main():
    variants = sys.argv[1]
    skel = sys.argv[2] if len(sys.argv) > 2 else 'target/release/skel'
    out = tempfile.mkdtemp(prefix='skel-render-variants-')
    for name in ['CesiumMan', 'Fox', 'RobotExpressive']:
        for file in [name, f'{name}_gltfpack', f'{name}_gltfpack_cc', f'{name}_draco']:
            subprocess.run([skel, 'render', os.path.join(variants, f'{file}.glb'), '--clip', '0',
                            '--frames', '3', '--fps', '1', '--size', '256x256',
                            '--out', os.path.join(out, file)], check=True,
                           stdout=subprocess.DEVNULL)
        for variant in ['gltfpack', 'gltfpack_cc', 'draco']:
            file = f'{name}_{variant}'
            frames = sorted(f for f in os.listdir(os.path.join(out, name))
                            if f.startswith('frame') and f.endswith('.png'))
            for frame in frames:
                differ, total, iou = compare(os.path.join(out, name, frame),
                                             os.path.join(out, file, frame))
                print(json.dumps({'file': file, 'frame': frame, 'pixels_off_by_more_than_8': differ,
                                  'pixels': total, 'silhouette_iou': round(iou, 4)}))


if __name__ == '__main__':
    main()
