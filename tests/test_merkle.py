"""The log's Merkle tree against the Certificate Transparency reference vectors (RFC 6962 /
RFC 9162 section 2.1): the tree heads and audit paths every other implementation publishes
for the same eight leaves, so a regulator's own tool agrees with ours."""

from __future__ import annotations

import hashlib

import pytest

from schemas.merkle import (
    EMPTY_ROOT,
    Tree,
    inclusion_proof,
    leaf_hash,
    root_of,
    verify_inclusion,
)

LEAF_INPUTS = [bytes.fromhex(h) for h in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f")]
REFERENCE_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (zero-based leaf index, tree size, audit path) from the same reference data
REFERENCE_PATHS = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
]
LEAVES = [leaf_hash(d) for d in LEAF_INPUTS]


def test_empty_tree_is_the_hash_of_nothing() -> None:
    assert EMPTY_ROOT.hex() == REFERENCE_ROOTS[0] == hashlib.sha256(b"").hexdigest()
    assert Tree().root() == EMPTY_ROOT


@pytest.mark.parametrize("size", range(9))
def test_tree_heads_match_the_reference(size: int) -> None:
    assert root_of(LEAVES[:size]).hex() == REFERENCE_ROOTS[size]
    tree = Tree()
    for leaf in LEAVES[:size]:
        tree.append(leaf)
    assert tree.size == size
    assert tree.root().hex() == REFERENCE_ROOTS[size]


@pytest.mark.parametrize(("index", "size", "path"), REFERENCE_PATHS)
def test_audit_paths_match_the_reference(index: int, size: int, path: list[str]) -> None:
    got = inclusion_proof(LEAVES[:size], index)
    assert [h.hex() for h in got] == path
    root = bytes.fromhex(REFERENCE_ROOTS[size])
    assert verify_inclusion(LEAVES[index], index, size, got, root)


def test_a_grown_tree_resumes_from_its_subtrees() -> None:
    leaves = [leaf_hash(i.to_bytes(4, "big")) for i in range(300)]
    whole = Tree()
    for i, leaf in enumerate(leaves):
        whole.append(leaf)
        if i in (0, 1, 6, 127, 128, 200):
            resumed = Tree(whole.size, whole.subtrees)
            for later in leaves[i + 1:]:
                resumed.append(later)
            assert resumed.root() == root_of(leaves)
    with pytest.raises(ValueError, match="perfect subtrees"):
        Tree(5, whole.subtrees[:1])


def test_every_proof_verifies_and_nothing_else_does() -> None:
    leaves = [leaf_hash(bytes([i, i * 7 % 256])) for i in range(37)]
    for size in range(1, len(leaves) + 1):
        root = root_of(leaves[:size])
        for index in range(size):
            path = inclusion_proof(leaves[:size], index)
            assert verify_inclusion(leaves[index], index, size, path, root)
            assert not verify_inclusion(leaves[index], index, size, path,
                                        hashlib.sha256(root).digest())
            other = leaves[(index + 1) % size]
            if other != leaves[index]:
                assert not verify_inclusion(other, index, size, path, root)
            if size > 1:
                assert not verify_inclusion(leaves[index], (index + 1) % size, size, path, root)
                assert not verify_inclusion(leaves[index], index, size, path[:-1], root)
            assert not verify_inclusion(leaves[index], index, size, [*path, root], root)
            assert not verify_inclusion(leaves[index], size, size, path, root)


def test_levels_answer_the_same_paths_as_the_recursive_definition() -> None:
    from schemas.merkle import Levels

    leaves = [leaf_hash(i.to_bytes(2, "big")) for i in range(70)]
    levels = Levels(leaves)
    for size in (1, 2, 3, 7, 8, 9, 33, 64, 65, 70):
        assert levels.root(size) == root_of(leaves[:size])
        for index in range(size):
            assert levels.path(index, size) == inclusion_proof(leaves[:size], index)
    with pytest.raises(ValueError):
        levels.path(3, 71)
