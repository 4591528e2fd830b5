//! Python bindings of pfabric-core: a scenario as JSON in, the run's columns out. No simulation logic lives
//! here. The GIL is released while the engine runs (in chunks of events, so progress callbacks and Ctrl-C are
//! served between chunks).

use std::time::Instant;

use pfabric_core::config::{scheme_defaults, scheme_names as core_scheme_names};
use pfabric_core::results::{
    arrival_columns, flow_columns, port_columns, priority_loss_columns, run_stats, throughput_columns, Column, Columns,
};
use pfabric_core::{ScenarioConfig, Simulation};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

/// Events per chunk between progress reports: small enough to report several times a second.
const CHUNK_EVENTS: u64 = 1 << 20;

/// `values` as little-endian bytes in one Python bytes object, written in place (no intermediate buffer).
fn le_bytes<'py, T, const N: usize>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(&T) -> [u8; N],
) -> PyResult<Py<PyAny>> {
    let bytes = PyBytes::new_with(py, values.len() * N, |buf| {
        for (out, value) in buf.chunks_exact_mut(N).zip(values) {
            out.copy_from_slice(&to_le(value));
        }
        Ok(())
    })?;
    Ok(bytes.into_any().unbind())
}

fn columns_to_dict<'py>(py: Python<'py>, cols: Columns) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in cols {
        let entry: (String, Py<PyAny>) = match col {
            Column::U64(v) => ("<u8".into(), le_bytes(py, &v, |x| x.to_le_bytes())?),
            Column::U32(v) => ("<u4".into(), le_bytes(py, &v, |x| x.to_le_bytes())?),
            Column::F64(v) => ("<f8".into(), le_bytes(py, &v, |x| x.to_le_bytes())?),
            Column::Bool(v) => ("|u1".into(), le_bytes(py, &v, |&b| [b as u8])?),
            Column::Labels { codes, names } => {
                ("labels".into(), (PyBytes::new(py, &codes), names).into_pyobject(py)?.into_any().unbind())
            }
        };
        d.set_item(name, entry)?;
    }
    Ok(d)
}

thread_local! {
    /// The last panic's message and place, kept by the hook `guarded` installs (instead of printing them).
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// `f`, with a panic of the core (a bug: the scenario passed validation) turned into one RuntimeError naming
/// it and where, instead of a PanicException and a backtrace on stderr that escape every handler.
fn guarded<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string().replace('\n', ": ")));
        }))
    });
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| {
        let what = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "a panic".into());
        PyRuntimeError::new_err(format!(
            "internal error in the simulation core ({what}): a bug, please report the scenario"
        ))
    })
}

/// Run the scenario given as JSON. `progress`, if given, is called with a dict between chunks of events.
/// Returns {"flows": {column: (dtype, bytes)}, "ports": {...}, "priority_loss": {...}, "throughput": {...},
/// "stats": {...}}.
#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None))]
fn run<'py>(py: Python<'py>, scenario_json: &str, progress: Option<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let cfg = ScenarioConfig::from_json(scenario_json).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let started = Instant::now();
    let mut sim = py.detach(|| guarded(|| Simulation::new(cfg)))?;
    loop {
        let done = py.detach(|| guarded(|| sim.step(CHUNK_EVENTS)))?;
        py.check_signals()?;
        if let Some(cb) = &progress {
            let p = sim.progress();
            let d = PyDict::new(py);
            d.set_item("flows_started", p.flows_started)?;
            d.set_item("flows_finished", p.flows_finished)?;
            d.set_item("flows_total", p.flows_total)?;
            d.set_item("sim_time_ps", p.sim_time)?;
            d.set_item("events", p.events)?;
            d.set_item("done", done)?;
            cb.call1((d,))?;
        }
        if done {
            break;
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    let out = PyDict::new(py);
    out.set_item("flows", columns_to_dict(py, flow_columns(&sim))?)?;
    out.set_item("ports", columns_to_dict(py, port_columns(&sim))?)?;
    out.set_item("priority_loss", columns_to_dict(py, priority_loss_columns(&sim))?)?;
    out.set_item("throughput", columns_to_dict(py, throughput_columns(&sim))?)?;
    out.set_item("arrivals", columns_to_dict(py, arrival_columns(&sim))?)?;
    let stats = PyDict::new(py);
    for (k, v) in run_stats(&sim) {
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            stats.set_item(k, v as i64)?;
        } else {
            stats.set_item(k, v)?;
        }
    }
    stats.set_item("wall_s", wall_s)?;
    out.set_item("stats", stats)?;
    Ok(out)
}

/// Check a scenario JSON without running it; raises ValueError with a one-line message.
#[pyfunction]
fn validate(scenario_json: &str) -> PyResult<()> {
    ScenarioConfig::from_json(scenario_json).map(|_| ()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The scheme names the core knows.
#[pyfunction]
fn scheme_names() -> Vec<&'static str> {
    core_scheme_names()
}

/// The paper's parameters of a scheme as a dict (user units); None for an unknown name.
#[pyfunction]
fn scheme_defaults_json(name: &str) -> Option<String> {
    scheme_defaults(name).map(|pairs| {
        let map: serde_json::Map<String, serde_json::Value> =
            pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::Value::Object(map).to_string()
    })
}

/// The parameters bundle `name` accepts with `host` and/or `switch` swapped in, with their defaults, as a
/// JSON dict (`host` and `switch` first); ValueError with the one-line reason for a pair that cannot run.
#[pyfunction]
#[pyo3(signature = (name, host=None, switch=None))]
fn scheme_parameters_json(name: &str, host: Option<&str>, switch: Option<&str>) -> PyResult<String> {
    let pairs = pfabric_core::config::scheme::parameters(name, host, switch)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let map: serde_json::Map<String, serde_json::Value> = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    Ok(serde_json::Value::Object(map).to_string())
}

/// Every host, switch and bundle with its parameters, defaults and paper, as JSON.
#[pyfunction]
fn scheme_catalogue_json() -> String {
    pfabric_core::config::scheme::catalogue().to_string()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_names, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_defaults_json, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_parameters_json, m)?)?;
    m.add_function(wrap_pyfunction!(scheme_catalogue_json, m)?)?;
    // The release and a hash of the engine's sources: results stored under it are recomputed after any change.
    m.add("__version__", concat!(env!("CARGO_PKG_VERSION"), "+", env!("PFABRIC_SOURCE_HASH")))?;
    Ok(())
}
