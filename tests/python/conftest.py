"""Fixtures of the Python binding's tests: run by ctest (e2e_python) with TPLAN_LIBRARY set to the
build's libtplan.so and PYTHONPATH to python/ (tests/python/CMakeLists.txt)."""

import pytest

import tplan


@pytest.fixture(scope="session")
def golf():
    return tplan.load("minigolf")


@pytest.fixture(scope="session")
def pool():
    return tplan.load("pool")


@pytest.fixture(scope="session")
def pool_plan(pool):
    """Pool, seed 1: the 164-step solved plan (3 controlled bodies, 11 with a state)."""
    return pool.plan(seed=1)
