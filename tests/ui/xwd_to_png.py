#!/usr/bin/env python3
"""Converts `xwd -root` output (stdin) to a PNG (argv[1]), with the standard
library only: the screen of an Xvfb run as a user sees it, menus and dialogs
included, for tests/ui/drive-menus.sh. Reads the 24/32-bit TrueColor
ZPixmap images Xvfb writes; anything else is refused with one line."""
import struct
import sys
import zlib


def read_xwd(data):
    header_size, version, pixmap_format, depth, width, height = struct.unpack(">6I", data[:24])
    if version != 7 or pixmap_format != 2:
        sys.exit("xwd_to_png: not an X11 ZPixmap window dump (version %d, format %d)" % (version, pixmap_format))
    fields = struct.unpack(">25I", data[:100])
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    red_mask, green_mask, blue_mask, ncolors = fields[14], fields[15], fields[16], fields[19]
    # xwd of an Xvfb screen writes 4 bytes a pixel, or 3 packed once a window
    # with another visual is up (its lines as long as before).
    pixel_bytes = bits_per_pixel // 8
    if bits_per_pixel not in (24, 32) or bytes_per_line < width * pixel_bytes:
        sys.exit("xwd_to_png: %d bits per pixel in %d-byte lines; only a 24-bit TrueColor screen "
                 "(Xvfb -screen 0 WxHx24) is read" % (bits_per_pixel, bytes_per_line))
    offset = header_size + ncolors * 12
    shifts = [(mask & -mask).bit_length() - 1 for mask in (red_mask, green_mask, blue_mask)]
    little = byte_order == 0
    rows = []
    for y in range(height):
        line = data[offset + y * bytes_per_line: offset + y * bytes_per_line + width * pixel_bytes]
        pixels = [int.from_bytes(line[x:x + pixel_bytes], "little" if little else "big")
                  for x in range(0, width * pixel_bytes, pixel_bytes)]
        row = bytearray(b"\x00")  # PNG filter: none
        for pixel in pixels:
            row += bytes(((pixel >> shifts[0]) & 255, (pixel >> shifts[1]) & 255, (pixel >> shifts[2]) & 255))
        rows.append(bytes(row))
    return width, height, b"".join(rows)


def png(width, height, raw):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">2I5B", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: xwd -root -silent | xwd_to_png.py OUT.png")
    width, height, raw = read_xwd(sys.stdin.buffer.read())
    with open(sys.argv[1], "wb") as out:
        out.write(png(width, height, raw))
