"""The Merkle tree over the log's records: the Certificate Transparency construction.

RFC 9162 (Certificate Transparency 2.0), section 2.1, as in RFC 6962 section 2.1:

- the hash of an empty tree is SHA-256 of the empty string;
- a leaf hash is ``SHA-256(0x00 || leaf input)``; an interior node is
  ``SHA-256(0x01 || left || right)`` (the prefixes keep a leaf from passing as a node);
- the tree of n > 1 leaves splits at k, the largest power of two smaller than n: the left
  subtree holds the first k leaves, the right one the rest.

:class:`Tree` grows a leaf at a time keeping only the roots of its perfect subtrees (the
"compact range", at most log2(n) hashes), so the writer never re-reads the log to sign its
root. :func:`inclusion_proof` and :func:`verify_inclusion` are the audit path of RFC 9162
sections 2.1.3.1 and 2.1.3.2: a regulator checks that a record is in a signed tree with the
record, the path and the checkpoint alone (docs/log-integrity.md).

:func:`consistency_proof` and :func:`verify_consistency` are the consistency proof of RFC 9162
sections 2.1.4.1 and 2.1.4.2: whoever kept an old checkpoint learns that the log of a newer
one holds the same records first, only more after them, from a few hashes (at most about
2 log2(n)) instead of the whole log. The proof is made from :class:`Levels` or from
:class:`Subtrees` (the perfect subtrees a writer kept at each segment's end, the leaves for
the rest), so a proof across a million records hashes a few thousand nodes, not the tree.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(leaf_input: bytes) -> bytes:
    """RFC 9162 2.1.1: ``SHA-256(0x00 || leaf input)``."""
    return hashlib.sha256(b"\x00" + leaf_input).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 9162 2.1.1: ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


class Tree:
    """A Merkle tree grown leaf by leaf: its size and the roots of its perfect subtrees,
    largest (leftmost) first."""

    __slots__ = ("_size", "_stack")

    def __init__(self, size: int = 0, subtrees: Sequence[bytes] = ()) -> None:
        if size < 0 or len(subtrees) != size.bit_count():
            raise ValueError(f"a tree of {size} leaves has {size.bit_count()} perfect "
                             f"subtrees, not {len(subtrees)}")
        self._size = size
        self._stack = list(subtrees)

    @property
    def size(self) -> int:
        return self._size

    @property
    def subtrees(self) -> tuple[bytes, ...]:
        """What a writer keeps to go on growing the tree (in the segment header)."""
        return tuple(self._stack)

    def append(self, leaf: bytes) -> None:
        """Add a leaf by its leaf hash (:func:`leaf_hash`)."""
        node = leaf
        size = self._size
        while size & 1:
            node = node_hash(self._stack.pop(), node)
            size >>= 1
        self._stack.append(node)
        self._size += 1

    def root(self) -> bytes:
        """The tree head: the perfect subtrees folded right to left, which is the RFC's
        split at the largest power of two."""
        if not self._stack:
            return EMPTY_ROOT
        node = self._stack[-1]
        for left in reversed(self._stack[:-1]):
            node = node_hash(left, node)
        return node


def root_of(leaves: Sequence[bytes]) -> bytes:
    """The root of the tree of these leaf hashes (RFC 9162 2.1.1, recursively)."""
    n = len(leaves)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaves[0]
    k = _split(n)
    return node_hash(root_of(leaves[:k]), root_of(leaves[k:]))


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """PATH(m, D[n]) of RFC 9162 2.1.3.1: the audit path of leaf ``index`` in the tree of
    ``leaves`` (leaf hashes), nearest sibling first."""
    n = len(leaves)
    if not 0 <= index < n:
        raise ValueError(f"leaf {index} is not in a tree of {n} leaves")
    if n == 1:
        return []
    k = _split(n)
    if index < k:
        return [*inclusion_proof(leaves[:k], index), root_of(leaves[k:])]
    return [*inclusion_proof(leaves[k:], index - k), root_of(leaves[:k])]


def verify_inclusion(leaf: bytes, index: int, size: int, path: Sequence[bytes],
                     root: bytes) -> bool:
    """RFC 9162 2.1.3.2: whether ``path`` proves leaf hash ``leaf`` at ``index`` in the tree
    of ``size`` leaves whose root is ``root``."""
    if not 0 <= index < size:
        return False
    fn, sn = index, size - 1
    node = leaf
    for sibling in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            node = node_hash(sibling, node)
            if not fn & 1:
                while not fn & 1 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            node = node_hash(node, sibling)
        fn >>= 1
        sn >>= 1
    return sn == 0 and node == root


class Subtrees:
    """The nodes of the tree over ``leaves`` (leaf hashes), found from what is at hand: the
    perfect subtrees of compact ranges already known (:attr:`Tree.subtrees` of trees of
    the first e leaves, as every segment header keeps them), and the leaves for the rest.

    A perfect subtree of 2**h leaves starting at a multiple of 2**h is in the compact range
    of every size from its end up to the next multiple of 2**(h+1) (minus one), so with a
    compact range kept every few thousand records only the nodes near a kept size's end
    are hashed again. What the known subtrees say is taken as given: a caller that did not
    verify them checks what it made against a signed root (a wrong node gives a proof
    that does not verify, never a proof that verifies wrongly)."""

    __slots__ = ("_known", "_leaves")

    def __init__(self, leaves: Sequence[bytes], ranges: Iterable[Tree] = ()) -> None:
        self._leaves = leaves
        self._known: dict[tuple[int, int], bytes] = {}
        for tree in ranges:
            self.add(tree)

    @property
    def size(self) -> int:
        return len(self._leaves)

    @property
    def leaves(self) -> Sequence[bytes]:
        return self._leaves

    def add(self, tree: Tree) -> None:
        """Know the perfect subtrees of ``tree``, the tree of the first ``tree.size``
        leaves."""
        if tree.size > len(self._leaves):
            raise ValueError(f"a tree of {tree.size} leaves is not a prefix of a tree of "
                             f"{len(self._leaves)}")
        start = 0
        heights = [h for h in range(tree.size.bit_length() - 1, -1, -1) if tree.size >> h & 1]
        for height, node in zip(heights, tree.subtrees, strict=True):
            self._known[(start, height)] = node
            start += 1 << height

    def _perfect(self, start: int, height: int) -> bytes:
        node = self._known.get((start, height))
        if node is not None:
            return node
        if height == 0:
            return self._leaves[start]
        half = 1 << (height - 1)
        return node_hash(self._perfect(start, height - 1), self._perfect(start + half, height - 1))

    def _root(self, start: int, end: int) -> bytes:
        n = end - start
        if n == 0:
            return EMPTY_ROOT
        height = n.bit_length() - 1
        if n == 1 << height and start % n == 0:
            return self._perfect(start, height)
        k = _split(n)
        return node_hash(self._root(start, start + k), self._root(start + k, end))

    def root(self, size: int) -> bytes:
        """The head of the tree of the first ``size`` leaves."""
        return self._root(0, size)


class Levels:
    """Every level of the tree over a list of leaf hashes, kept to answer many audit paths
    without hashing the whole tree again: level 0 is the leaves, level i+1 pairs level i.
    A subtree that starts at a multiple of its size, a power of two, is one stored node;
    any other is split as the RFC splits it."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        self._levels = [list(leaves)]
        while len(self._levels[-1]) > 1:
            below = self._levels[-1]
            self._levels.append([node_hash(below[i], below[i + 1])
                                 for i in range(0, len(below) - 1, 2)])

    def _root(self, start: int, end: int) -> bytes:
        n = end - start
        if n == 0:
            return EMPTY_ROOT
        height = n.bit_length() - 1
        if n == 1 << height and start % n == 0:
            return self._levels[height][start >> height]
        k = _split(n)
        return node_hash(self._root(start, start + k), self._root(start + k, end))

    @property
    def size(self) -> int:
        return len(self._levels[0])

    def root(self, size: int) -> bytes:
        """The head of the tree of the first ``size`` leaves."""
        return self._root(0, size)

    def path(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[size]) of RFC 9162 2.1.3.1, as :func:`inclusion_proof` gives it."""
        if not 0 <= index < size <= len(self._levels[0]):
            raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
        out: list[bytes] = []
        start, end = 0, size
        while end - start > 1:
            k = _split(end - start)
            if index < start + k:
                out.append(self._root(start + k, end))
                end = start + k
            else:
                out.append(self._root(start, start + k))
                start += k
        out.reverse()
        return out


def consistency_proof(tree: Sequence[bytes] | Levels | Subtrees, old: int,
                      new: int) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 2.1.4.1: the hashes that show the tree of the first
    ``old`` leaves to be a prefix of the tree of the first ``new`` (``tree`` holds at least
    ``new`` leaves: their hashes, or :class:`Levels` / :class:`Subtrees` over them). It is
    SUBPROOF(m, D[n], true), walked from the root down (each step appends the sibling
    subtree the verifier cannot compute) and given deepest first, as the RFC lists it.
    Empty when ``old`` is 0 or ``new``."""
    nodes = Subtrees(tree) if not isinstance(tree, (Levels, Subtrees)) else tree
    if not 0 <= old <= new <= nodes.size:
        raise ValueError(f"no consistency proof from {old} to {new} leaves in a tree of "
                         f"{nodes.size}")
    if old in (0, new):
        return []
    out: list[bytes] = []
    start, end, m, whole = 0, new, old, True
    while m != end - start:
        k = _split(end - start)
        if m <= k:
            out.append(nodes._root(start + k, end))
            end = start + k
        else:
            out.append(nodes._root(start, start + k))
            start, m, whole = start + k, m - k, False
    if not whole:
        out.append(nodes._root(start, end))
    out.reverse()
    return out


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: whether ``proof`` shows the tree of ``old_size`` leaves with root
    ``old_root`` to be a prefix of the tree of ``new_size`` leaves with root ``new_root``.

    The trees of equal size are consistent only with equal roots and an empty proof; the
    empty tree (root :data:`EMPTY_ROOT`) is a prefix of every tree, with an empty proof. A
    smaller new tree, a hash that is not 32 bytes, and any hash too many or too few are
    refused."""
    if not 0 <= old_size <= new_size or any(len(h) != 32 for h in proof):
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == EMPTY_ROOT
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for node in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(node, fr)
            sr = node_hash(node, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, node)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root
