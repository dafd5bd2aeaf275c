"""search.anchored.Below: stats reached below a directory without following links."""

from __future__ import annotations

import os
from pathlib import Path

from filewright.search.anchored import Below, open_real_dir


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for d in ("a/b", "c/d", "e/f", "g"):
        (root / d).mkdir(parents=True)
    for f in ("a/b/x.txt", "c/d/y.txt", "e/f/z.txt", "g/w.txt", "top.txt"):
        (root / f).write_text(f)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("secret")
    (root / "link").symlink_to(outside, target_is_directory=True)
    (root / "a" / "file_link.txt").symlink_to(root / "top.txt")
    return root


def test_regular_files_below_are_found_and_links_are_not_followed(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    fd = open_real_dir(root)
    try:
        with Below(fd) as below:
            for rel in (b"a/b/x.txt", b"c/d/y.txt", b"top.txt", b"./g//w.txt"):
                st = below.regular(rel)
                assert st is not None, rel
            assert below.regular(b"a/b/x.txt").st_size == len("a/b/x.txt")  # type: ignore[union-attr]
            assert below.regular(b"link/x.txt") is None  # through a symlinked directory
            assert below.regular(b"a/file_link.txt") is None  # a symlink itself
            assert below.regular(b"a/b") is None  # a directory
            assert below.regular(b"a/../top.txt") is None
            assert below.regular(b"missing/x.txt") is None
            assert below.regular(b"") is None
    finally:
        os.close(fd)


def test_a_directory_swapped_for_a_link_after_it_was_opened_is_not_followed_again(
    tmp_path: Path,
) -> None:
    root = _tree(tmp_path)
    fd = open_real_dir(root)
    try:
        with Below(fd) as below:
            assert below.regular(b"a/b/x.txt") is not None
            # b is swapped; the kept descriptor still names the directory it opened
            os.rename(root / "a" / "b", root / "a" / "b_old")
            (root / "a" / "b").symlink_to(tmp_path / "outside", target_is_directory=True)
            assert below.regular(b"a/b/x.txt") is not None  # the old directory's file
        with Below(fd) as fresh:
            assert fresh.regular(b"a/b/x.txt") is None  # a new walk refuses the link
    finally:
        os.close(fd)


def test_descriptors_are_bounded_and_released(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = len(os.listdir("/proc/self/fd"))
    fd = open_real_dir(root)
    try:
        with Below(fd, keep=2) as below:
            for _ in range(3):
                for rel in (b"a/b/x.txt", b"c/d/y.txt", b"e/f/z.txt", b"g/w.txt"):
                    assert below.regular(rel) is not None
                assert len(os.listdir("/proc/self/fd")) <= before + 1 + 2 + 1
    finally:
        os.close(fd)
    assert len(os.listdir("/proc/self/fd")) == before


def test_a_path_deeper_than_the_descriptors_kept(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    parts = [f"d{i}" for i in range(40)]
    (root / Path(*parts)).mkdir(parents=True)
    (root / Path(*parts) / "f.txt").write_text("x")
    before = len(os.listdir("/proc/self/fd"))
    fd = open_real_dir(root)
    try:
        with Below(fd, keep=8) as below:
            rel = "/".join([*parts, "f.txt"]).encode()
            assert below.regular(rel) is not None
            assert below.regular(rel) is not None
            assert len(os.listdir("/proc/self/fd")) <= before + 1 + 8 + 1
    finally:
        os.close(fd)
    assert len(os.listdir("/proc/self/fd")) == before
