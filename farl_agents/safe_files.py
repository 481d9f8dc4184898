"""Reading the files farl finds in a user's folder without trusting them: ``.npz`` archives and JSON.

An agent file is a zip of ``.npy`` members. Its size on disk says nothing about what it costs to read: a
few megabytes of zeros inflate to a gigabyte, and an ``.npy`` header may announce a trillion entries.
:class:`NpzFile` therefore reads only the zip directory and each member's ``.npy`` header when it opens a
file, and checks them against each other (the bytes the header's shape and type need must be the bytes the
directory declares); the caller reads the metadata (a small JSON member, bounded), works out from it which
members the file may hold and how large each may be (:meth:`NpzFile.arrays`), and only then is anything
large decompressed, never more than was declared. Members holding Python objects (pickles) are refused,
as are encrypted members and compressions numpy does not write. Every problem becomes one
:class:`AgentFileError` naming the file: a damaged byte (``zlib.error``), a lying header, a member too large,
one too many, metadata nested too deep.

JSON (the metadata member, a run's ``checkpoint.json``) goes through :func:`loads_json`, which bounds the
text's size and its nesting depth before parsing (``json`` recurses once per level, so deep nesting ends
in ``RecursionError``, and a parsed value may take many times the memory of its text).

This module sits at the bottom of ``farl_agents`` (of farl it imports only the size formatting of
:mod:`farl_agents.ntuple.budget`), so every family's loader and the run folder code can use it.
"""
from __future__ import annotations

import json
import os
import re
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.lib.format as npy

from farl_agents.ntuple.budget import human

MAX_JSON_BYTES = 16 * 2**20
"""The largest JSON file :func:`read_json` parses (a run's curve of thousands of points takes a few MB)."""
MAX_JSON_DEPTH = 64
"""The deepest nesting :func:`loads_json` accepts (farl's own files nest four or five levels)."""
MAX_META_CHARS = 4 * 2**20
"""The longest metadata member of an ``.npz`` (farl writes a few kilobytes)."""
MAX_MEMBERS = 4096
"""The most members an ``.npz`` may have (farl's have at most a few dozen)."""
MAX_HEADER_BYTES = 10_000
"""The longest ``.npy`` header read (numpy's own default limit)."""
ARRAY_KINDS = "biufcSU"
"""dtype kinds an array member may have: booleans, numbers, bytes and text; never objects or records."""
_CHUNK = 1 << 20


class BadFileError(ValueError):
    """A file farl reads is damaged, foreign, or larger or deeper than what it describes."""


class AgentFileError(BadFileError):
    """The file is not a readable farl agent (corrupt, truncated, foreign, oversized or for another game)."""


class MissingMetadata(AgentFileError, KeyError):
    """The archive has no metadata member: most likely some other program's ``.npz`` rather than a damaged
    farl file. Also a ``KeyError``, as the missing member was for readers that looked it up directly."""

    __str__ = BaseException.__str__  # the message as written, not KeyError's quoted form


# ------------------------------------------------------------------ JSON
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(text: str) -> int:
    """How deep the arrays and objects of the JSON ``text`` nest (brackets inside strings do not count)."""
    brackets = _STRING.sub("", text).encode("utf-8", "replace").translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    step = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(step, dtype=np.int32).max())


def loads_json(text: str | bytes, what: str, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH):
    """The value of the JSON ``text``, after checking its size and depth; :class:`BadFileError` starting with
    ``what`` (e.g. the file's path) when it is too large, too deep or not JSON."""
    if len(text) > max_bytes:
        raise BadFileError(f"{what} holds {human(len(text))} of JSON, more than the {human(max_bytes)} farl reads")
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        depth = json_depth(text)
        if depth > max_depth:
            raise BadFileError(f"{what} nests {depth} levels deep, more than the {max_depth} farl reads")
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        if isinstance(exc, BadFileError):
            raise
        raise BadFileError(f"{what} is not valid JSON ({' '.join(str(exc).split())})") from None


def read_json(path, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH):
    """The JSON value in the file ``path``, its size checked before it is read (:func:`loads_json`).
    ``OSError`` (e.g. ``FileNotFoundError``) as ``open`` raises it."""
    path = Path(path)
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > max_bytes:
            raise BadFileError(f"{path} holds {human(size)}, more than the {human(max_bytes)} of JSON farl reads")
        return loads_json(fh.read(max_bytes + 1), str(path), max_bytes, max_depth)


# ------------------------------------------------------------------ .npz
@dataclass(frozen=True)
class Member:
    """One ``.npy`` member of an archive, as its zip directory entry and its header describe it."""

    name: str
    """The array's name (the member's file name without ``.npy``)."""
    dtype: np.dtype
    shape: tuple
    fortran_order: bool
    header_bytes: int
    """Bytes of the ``.npy`` header before the data."""
    info: zipfile.ZipInfo

    @property
    def nbytes(self) -> int:
        """Bytes of the array's data (what the header needs, equal to what the zip directory declares)."""
        count = 1
        for n in self.shape:
            count *= int(n)
        return count * self.dtype.itemsize


_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError,
                OverflowError)
"""What zipfile, zlib and numpy's header parser raise for damaged bytes (bad CRC, bad deflate data, short
data, unsupported features, a header that is not a Python literal)."""


class NpzFile:
    """An ``.npz`` archive opened for checked reading (see the module docstring); use as a context manager.

    Opening reads the zip directory and every member's ``.npy`` header, and refuses members that are not
    plain arrays or whose header disagrees with the directory. :attr:`members` then tells each member's
    type, shape and size without any data read. ``what`` names the kind of file in messages
    (``"farl agent file"``).
    """

    def __init__(self, path, what: str = "farl agent file"):
        self.path = Path(path)
        self.what = what
        self.members: dict[str, Member] = {}
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise self.error(f"is not a {what} (unreadable: {_one_line(exc)})") from None
        try:
            self._read_directory()
        except BaseException:
            self.close()
            raise

    def error(self, text: str) -> AgentFileError:
        """An :class:`AgentFileError` about this file: its path, then ``text``."""
        return AgentFileError(f"{self.path} {text}")

    def _read_directory(self) -> None:
        infos = self._zip.infolist()
        if len(infos) > MAX_MEMBERS:
            raise self.error(f"is not a {self.what} ({len(infos)} members; farl reads at most {MAX_MEMBERS})")
        for info in infos:
            if not info.filename.endswith(".npy") or info.is_dir():
                raise self.error(f"is not a {self.what} (member {info.filename!r} is not an array)")
            name = info.filename[:-4]
            if name in self.members:
                raise self.error(f"is not a {self.what} (member {name!r} appears twice)")
            if info.flag_bits & 0x1:
                raise self.error(f"is not a {self.what} (member {name!r} is encrypted)")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise self.error(f"is not a {self.what} (member {name!r} uses a compression numpy does not write)")
            self.members[name] = self._header(name, info)

    def _header(self, name: str, info: zipfile.ZipInfo) -> Member:
        try:
            with self._zip.open(info) as fp:
                version = npy.read_magic(fp)
                if version == (1, 0):
                    shape, fortran, dtype = npy.read_array_header_1_0(fp, max_header_size=MAX_HEADER_BYTES)
                elif version == (2, 0):
                    shape, fortran, dtype = npy.read_array_header_2_0(fp, max_header_size=MAX_HEADER_BYTES)
                else:
                    raise ValueError(f".npy version {version[0]}.{version[1]}")
                header = fp.tell()
        except _READ_ERRORS as exc:
            raise self.error(f"is damaged (member {name!r}: {_one_line(exc)})") from None
        if (dtype.hasobject or dtype.kind not in ARRAY_KINDS or dtype.fields is not None or dtype.subdtype
                or dtype.itemsize == 0):
            raise self.error(f"is not a {self.what} (member {name!r} holds {dtype}, not plain numbers or text: "
                             f"farl never reads pickled objects)")
        member = Member(name, dtype, tuple(int(n) for n in shape), bool(fortran), header, info)
        declared = info.file_size - header
        if member.nbytes != declared:
            raise self.error(f"is damaged (member {name!r} announces {shape} {dtype}, {human(member.nbytes)}, "
                             f"but the archive declares {human(max(declared, 0))})")
        return member

    # ------------------------------------------------------------ reading
    def meta(self, name: str = "meta", missing: str = "no metadata"):
        """The JSON value stored as the text member ``name`` (a 0-d unicode array), size and depth bounded.
        :class:`MissingMetadata` ending with ``missing`` when there is no such member."""
        member = self.members.get(name)
        if member is None:
            raise MissingMetadata(f"{self.path} is not a {self.what} ({missing})")
        if member.dtype.kind != "U" or member.shape != ():
            raise self.error(f"is not a {self.what} (member {name!r} is {member.dtype} {member.shape}, not text)")
        if member.nbytes > 4 * MAX_META_CHARS:
            raise self.error(f"is not a {self.what} (its {name!r} takes {human(member.nbytes)}; farl reads at "
                             f"most {human(4 * MAX_META_CHARS)} of metadata)")
        text = str(self.read(name))
        try:
            return loads_json(text, f"its {name!r}", 4 * MAX_META_CHARS)
        except BadFileError as exc:
            raise self.error(f"is not a {self.what} ({exc})") from None

    def check(self, limits: Mapping[str, int]) -> None:
        """Refuse members not named in ``limits`` and members larger than their limit (bytes), from the
        directory alone."""
        extra = sorted(set(self.members) - set(limits))
        if extra:
            raise self.error(f"is not a {self.what}: it holds member{'s' if len(extra) > 1 else ''} "
                             f"{', '.join(repr(n) for n in extra[:5])}{' ...' if len(extra) > 5 else ''} that "
                             f"its format does not have")
        for name, member in self.members.items():
            if member.nbytes > limits[name]:
                raise self.error(f"is not a {self.what}: member {name!r} takes {human(member.nbytes)}, more than "
                                 f"the {human(limits[name])} its metadata allows")

    def arrays(self, limits: Mapping[str, int]) -> dict[str, np.ndarray]:
        """Every member as an array, after :meth:`check` with ``limits``."""
        self.check(limits)
        return {name: self.read(name) for name in self.members}

    def read(self, name: str) -> np.ndarray:
        """The member ``name`` as an array: exactly the bytes its header announced, checked against the CRC.

        Reads no limit of its own beyond the declared size: check the member first (:meth:`check`, or its
        :attr:`members` entry).
        """
        member = self.members[name]
        count = member.nbytes // member.dtype.itemsize if member.dtype.itemsize else 0
        flat = np.empty(count, dtype=member.dtype)
        try:
            with self._zip.open(member.info) as fp:
                fp.read(member.header_bytes)
                buf = memoryview(flat.view(np.uint8)) if flat.nbytes else memoryview(b"")
                done = 0
                while done < flat.nbytes:
                    got = fp.readinto(buf[done:done + _CHUNK])
                    if not got:
                        raise EOFError(f"data ends after {done} of {flat.nbytes} bytes")
                    done += got
                if fp.read(1):  # also where zipfile compares the CRC
                    raise ValueError("more data than the header announces")
        except _READ_ERRORS as exc:
            raise self.error(f"is damaged (member {name!r}: {_one_line(exc)})") from None
        if member.fortran_order:
            return flat.reshape(member.shape[::-1]).transpose()
        return flat.reshape(member.shape)

    # ------------------------------------------------------------ context
    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> "NpzFile":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


class LazyArrays(Mapping):
    """The members of an ``.npz`` as a read-only mapping that reads an array only when it is asked for
    (checked as :meth:`NpzFile.read`), so code that wants only the metadata of a file reads nothing else."""

    def __init__(self, path, what: str, names):
        self._path, self._what, self._names = Path(path), what, tuple(names)

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._names:
            raise KeyError(name)
        with NpzFile(self._path, self._what) as f:
            if name not in f.members:
                raise f.error(f"changed while it was read (member {name!r} is gone)")
            return f.read(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
