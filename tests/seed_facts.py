"""Facts of the seed, written once for the tests and never read from the package under test.

The seed's Node program (seed 000, ``tests/reference/seed_router.mjs``) prints its fixture with the
sha256 of the compact JSON it serialises; :data:`SEED_FIXTURE_SHA256` is that value as the program
printed it. A test that compares the lab's digest with the lab's own constant could not fail when
both drift together; these compare with the seed.
"""

from __future__ import annotations

#: The sha256 the seed's Node program prints for its fixture payload.
SEED_FIXTURE_SHA256 = "b07a3cfddf44d5ff300da17345bc31697013a48211d23d974456ea2390f88b7b"
