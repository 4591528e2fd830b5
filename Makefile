# The entry points a newcomer needs. `make demo` and `make test` work on a fresh machine with Python >= 3.11
# and a Rust toolchain: they install what they need into the current Python environment.
PYTHON ?= python3
PIP := $(PYTHON) -m pip
OUT ?= out/demo

.PHONY: demo test install install-test rust-test py-test lint bench bench-targets fmt fuzz fidelity fidelity-paper

install:
	$(PIP) install --quiet .

install-test:
	$(PIP) install --quiet ".[test]"

# Installs, runs a small web-search scenario (TCP and pFabric on the paper's 144-host fabric), writes Parquet,
# a summary and plots under $(OUT), then reproduces the paper's Figure 7 quickly and writes an HTML report.
demo: install
	$(PYTHON) -m pfabric demo -o $(OUT)
	$(PYTHON) -m pfabric reproduce pfabric-fig7 --quick --store $(OUT)/store -o $(OUT)/figures
	$(PYTHON) -m pfabric report --figures $(OUT)/figures -o $(OUT)/report.html

# Installs with the test extras, then runs every test: the Rust core's, then Python's.
test: install-test lint rust-test py-test

rust-test:
	cargo test --quiet -p pfabric-core

py-test:
	$(PYTHON) -m pytest

# The random tests at full size: bad input of every shape through the API and the CLI, each run or refused in
# one line (tests/test_fuzz.py: 100000 examples per API test, the CLI a fifth; `make test` runs 1000), the
# invariants of runs over random valid scenarios (tests/test_properties.py: thousands; `make test` runs 40),
# and the partitioned engine's random scenarios on one and three threads (1000; `make test` runs 24).
fuzz:
	PFABRIC_FUZZ_EXAMPLES=100000 PFABRIC_PROPERTY_EXAMPLES=2000 PFABRIC_PROPERTY_RANDOM=1 $(PYTHON) -m pytest tests/test_fuzz.py tests/test_properties.py -q
	PFABRIC_PARALLEL_CASES=1000 cargo test --quiet -p pfabric-core --test parallel random_scenarios

lint:
	cargo fmt --all --check
	cargo clippy --quiet -p pfabric-core -p pfabric-py --all-targets -- -D warnings
	$(PYTHON) -m ruff check python tests bench

fmt:
	cargo fmt --all
	$(PYTHON) -m ruff format python tests bench

bench: install
	cargo run --quiet --release -p pfabric-core --example bench
	$(PYTHON) bench/run.py

# The issue "Scale"'s targets on this machine, one table, each row met or not (bench/targets.py: three rounds,
# about 20 minutes on 2 cores; run it on an otherwise idle machine).
bench-targets:
	cargo build --quiet --release -p pfabric-core --example bench
	$(PYTHON) bench/targets.py target/release/examples/bench

# Every check against theory and the papers, one table each: FIDELITY.md at quick scale (about 10 minutes on 2
# cores), FIDELITY-paper.md at paper scale (hours on 2 cores; runs already in results/store are not rerun).
fidelity: install
	$(PYTHON) -m pfabric validate --quick --write FIDELITY.md

fidelity-paper: install
	$(PYTHON) -m pfabric validate --write FIDELITY-paper.md
