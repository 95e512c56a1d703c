#!/usr/bin/env python3
"""The HTML report in a real browser: headless Chromium loads the page from disk; --dump-dom
must show every matrix cell and the hostile completion text as text (no injected element), and
--screenshot must give a non-blank PNG of the window's size. Chromium runs in a session of its
own with a fresh profile and a deadline; on the deadline its group is killed by its PID."""
import argparse
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 1280, 900
DEADLINE_S = 60
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


def fail(message):
    print("browser test: " + message, file=sys.stderr)
    sys.exit(1)


def find_browser(configured):
    if configured and os.access(configured, os.X_OK):
        return configured
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    fail("no headless Chromium (chromium-headless-shell or chromium) found: install it, "
         "scripts/run-tests.sh does")


def run(argv, what, expect=0):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE_S)
    if done.returncode != expect:
        fail(f"{what} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done.stdout


def browse(browser, profile, args):
    """Runs the browser to completion; past the deadline its whole group is killed."""
    argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}"] + args
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    try:
        out, err = child.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        fail(f"chromium did not finish within {DEADLINE_S} s: {' '.join(argv)}")
    try:  # helpers it left in its session (crash handler) end with it
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if child.returncode != 0:
        fail(f"chromium exited {child.returncode}: {err.decode(errors='replace')[-2000:]}")
    return out.decode("utf-8", errors="replace")


def check_dom(dom):
    words = re.findall(r'<span class="word">([A-Z]+)</span>', dom)
    expected = {"GREEN": 2, "RED": 1, "AMBER": 1, "UNVERIFIED": 1, "INVALID": 1}
    found = {w: words.count(w) for w in expected}
    if found != expected or len(words) != sum(expected.values()):
        fail(f"matrix cells {words}, expected {expected}")
    if re.search(r"<script", dom, re.IGNORECASE):
        fail("the page holds a script element: a completion was injected as markup")
    for text in ('&lt;script&gt;alert("pwned")&lt;/script&gt; &amp; \'quoted\'',
                 "&lt;b&gt;final&lt;/b&gt;", "Largest N that is GREEN, with every smaller N measured, at every ctx measured"):
        if text not in dom:
            fail(f"the DOM does not show {text!r} as text")
    if "<b>final</b>" in dom:
        fail("the serial text's <b> became an element")


def png_pixels(data):
    """(width, height, rows of bytes per pixel) of an 8-bit RGB or RGBA PNG, rows unfiltered."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = header[0], header[1], header[2], header[3]
    if depth != 8 or colour not in (2, 6):
        fail(f"unexpected PNG format: bit depth {depth}, colour type {colour}")
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, corner = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, bpp, rows


def check_screenshot(path):
    with open(path, "rb") as f:
        width, height, bpp, rows = png_pixels(f.read())
    if (width, height) != (WIDTH, HEIGHT):
        fail(f"screenshot is {width}x{height}, expected {WIDTH}x{HEIGHT}")
    colours = set()
    for row in rows[::8]:
        for x in range(0, len(row), bpp * 4):
            colours.add(row[x:x + 3])
    # A blank page is one colour; the report has text, cards and four verdict colours.
    if len(colours) < 20:
        fail(f"screenshot looks blank: {len(colours)} distinct colours")
    reds = [c for c in colours if c[0] > 200 and c[1] < 120 and c[2] < 120]
    if not reds:
        fail("no RED cell colour in the screenshot")
    return len(colours)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bi-run", required=True)
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--chromium", default="")
    args = parser.parse_args()
    browser = find_browser(args.chromium)
    with tempfile.TemporaryDirectory(prefix="bi-browser-") as tmp:
        certs = os.path.join(tmp, "certs")
        os.mkdir(certs)
        run([args.fixtures, certs], "bi_report_fixtures")
        page = os.path.join(tmp, "report.html")
        # The fixtures hold one edited cert: the page shows it INVALID and the exit status is 1.
        run([args.bi_run, "report", "--html", page, certs], "bi-run report", expect=1)
        url = "file://" + page
        check_dom(browse(browser, os.path.join(tmp, "profile-dom"), ["--dump-dom", url]))
        shot = os.path.join(tmp, "shot.png")
        browse(browser, os.path.join(tmp, "profile-shot"), [f"--screenshot={shot}", url])
        n = check_screenshot(shot)
    print(f"browser test: {browser}: DOM has every cell and no injected element; "
          f"screenshot {WIDTH}x{HEIGHT}, {n} colours sampled")


if __name__ == "__main__":
    main()
