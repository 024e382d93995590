#!/usr/bin/env python3
"""Draws DB Dyno's app icon (a dyno gauge: a dial with a needle near the red zone) and
writes it as RGBA PNGs. Standard library only, so it runs on a bare Debian:

    python3 icons/make_icons.py

Tauri's bundler refuses colour-map PNGs, so every file is 8-bit RGBA (colour type 6).
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = {"32x32.png": 32, "128x128.png": 128, "128x128@2x.png": 256, "icon.png": 512}
SS = 4  # supersampling per axis, for smooth edges

BG_TOP = (30, 41, 59)      # slate
BG_BOTTOM = (15, 23, 42)
DIAL = (226, 232, 240)
ARC_OK = (45, 212, 191)    # teal
ARC_HOT = (248, 113, 113)  # red zone
NEEDLE = (251, 191, 36)    # amber


def sample(x, y):
    """Colour (r, g, b, a) at a point of the unit square (0..1, y down)."""
    cx, cy = 0.5, 0.56
    # Rounded-square background (corner radius 0.2).
    r = 0.2
    qx, qy = max(abs(x - 0.5) - (0.5 - r), 0), max(abs(y - 0.5) - (0.5 - r), 0)
    if qx * qx + qy * qy > r * r:
        return (0, 0, 0, 0)
    t = y
    bg = tuple(int(BG_TOP[i] * (1 - t) + BG_BOTTOM[i] * t) for i in range(3))
    dx, dy = x - cx, y - cy
    d = math.hypot(dx, dy)
    ang = math.degrees(math.atan2(-dy, dx))  # 0 = right, 90 = up
    # The dial's arc runs from 210 deg (lower left) to -30 deg (lower right), clockwise.
    sweep = (210 - ang) % 360
    if 0.30 <= d <= 0.38 and sweep <= 240:
        return (*(ARC_HOT if sweep > 185 else ARC_OK), 255)
    # Tick marks inside the arc.
    if 0.24 <= d <= 0.28 and sweep <= 240 and (sweep % 30) < 4:
        return (*DIAL, 255)
    # Needle: from the hub towards 150 deg of the sweep (high load).
    na = math.radians(210 - 170)
    ux, uy = math.cos(na), -math.sin(na)
    along = dx * ux + dy * uy
    across = abs(dx * uy - dy * ux)
    if -0.04 <= along <= 0.33 and across <= 0.022 * (1 - along / 0.4):
        return (*NEEDLE, 255)
    if d <= 0.06:
        return (*DIAL, 255)
    return (*bg, 255)


def render(n):
    rows = []
    for py in range(n):
        row = bytearray([0])  # filter type 0 for every scanline
        for px in range(n):
            acc = [0, 0, 0, 0]
            for sy in range(SS):
                for sx in range(SS):
                    c = sample((px + (sx + 0.5) / SS) / n, (py + (sy + 0.5) / SS) / n)
                    a = c[3]
                    acc[0] += c[0] * a
                    acc[1] += c[1] * a
                    acc[2] += c[2] * a
                    acc[3] += a
            a = acc[3]
            if a == 0:
                row += bytes(4)
            else:
                row += bytes([acc[0] // a, acc[1] // a, acc[2] // a, a // (SS * SS)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(n, raw):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0)  # 8-bit, colour type 6 = RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main():
    for name, n in SIZES.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(png(n, render(n)))
        print("wrote", name, f"{n}x{n} RGBA")


if __name__ == "__main__":
    main()
