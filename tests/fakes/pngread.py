"""pngread: just enough PNG reading for the tests (standard library only).

The bot's pictures are 8-bit PNGs, indexed (its own writer, paint/png.c)
or truecolour; this reads both, checks every chunk's CRC, and returns the
size, the pixels and the iTXt/tEXt "Description" (the texts the picture
shows, which the public-payload scans read like any other text).

    info = png_info(data)            # {"width", "height", "text"}
    w, h, rgb = png_pixels(data)     # rgb[y][x] == (r, g, b)

Both raise ValueError on anything that is not a well-formed PNG.
"""
import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(data):
    if not isinstance(data, (bytes, bytearray)) or data[:8] != SIGNATURE:
        raise ValueError("not a PNG")
    at = 8
    while at < len(data):
        if at + 12 > len(data):
            raise ValueError("truncated chunk")
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if len(body) != n or at + 12 + n > len(data):
            raise ValueError("truncated chunk")
        crc = struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in %r" % kind)
        yield kind, body
        at += 12 + n
        if kind == b"IEND":
            return
    raise ValueError("no IEND")


def _text(kind, body):
    if kind == b"tEXt":
        k, _, v = body.partition(b"\0")
        return k.decode("latin-1"), v.decode("latin-1")
    if kind == b"iTXt":
        k, _, rest = body.partition(b"\0")
        compressed, _method = rest[0], rest[1]
        _lang, _, rest = rest[2:].partition(b"\0")
        _tkey, _, v = rest.partition(b"\0")
        if compressed:
            v = zlib.decompress(v)
        return k.decode("latin-1"), v.decode("utf-8")
    return None, None


def png_info(data):
    """{"width", "height", "depth", "colour", "text": the Description or ""}."""
    out = {"text": ""}
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            out.update(width=w, height=h, depth=depth, colour=colour)
        k, v = _text(kind, body)
        if k == "Description":
            out["text"] = v
    if "width" not in out:
        raise ValueError("no IHDR")
    return out


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def png_pixels(data):
    """(width, height, rows): rows[y][x] an (r, g, b) tuple.  8-bit
    indexed, grey, RGB or RGBA pictures, not interlaced."""
    idat, palette, info = b"", None, None
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            info = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"IDAT":
            idat += body
    if info is None:
        raise ValueError("no IHDR")
    w, h, depth, colour, _c, _f, interlace = info
    if depth != 8 or interlace:
        raise ValueError("only 8-bit, non-interlaced pictures")
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("IDAT holds %d bytes, not %d" % (len(raw), h * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                line[i] = (line[i] + _paeth(a, b, c)) & 255
            elif f != 0:
                raise ValueError("bad filter %d" % f)
        prev = line
        if colour == 3:
            rows.append([palette[v] for v in line])
        elif colour == 0:
            rows.append([(v, v, v) for v in line])
        elif colour == 4:
            rows.append([(line[i], line[i], line[i]) for i in range(0, stride, 2)])
        else:
            rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
    return w, h, rows


def _chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def make_png(width, height, text="", rgb=(255, 255, 255)):
    """A small truecolour PNG of one colour with text as its Description
    (the tests' canaries: a picture that says something it must not)."""
    row = b"\0" + bytes(rgb) * width
    body = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    if text:
        body += _chunk(b"iTXt", b"Description\0\1\0\0\0" + zlib.compress(text.encode()))
    body += _chunk(b"IDAT", zlib.compress(row * height)) + _chunk(b"IEND", b"")
    return SIGNATURE + body
