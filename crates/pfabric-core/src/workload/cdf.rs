//! Empirical flow-size distributions.
//!
//! A CDF is a list of (size, cumulative probability) rows. Read `Linear`, it is piecewise linear between rows
//! (a repeated size is a point mass), as ns-2's `RandomVariable/Empirical` and the pFabric scripts sample it;
//! read `Step`, each row is an atom (netbench's discrete files). A sampled size is rounded up to whole packets
//! of the run's packet format: flows are made of full packets, and the mean used to set the load is the mean of
//! exactly that rounded distribution, computed here in closed form from the rows (never a constant from elsewhere).

use crate::net::packet::PacketFormat;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
}

#[derive(Clone, Debug)]
pub struct EmpiricalCdf {
    sizes: Vec<f64>,
    cdf: Vec<f64>,
    interpolation: Interpolation,
}

/// Why a CDF is not usable: where (a column and row, counted from 1, or the whole table), the offending value,
/// and what is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct CdfError {
    pub place: String,
    pub value: String,
    pub allowed: &'static str,
}

fn cdf_err<T>(place: String, value: impl std::fmt::Debug, allowed: &'static str) -> Result<T, CdfError> {
    Err(CdfError { place, value: format!("{value:?}"), allowed })
}

impl EmpiricalCdf {
    pub fn new(sizes: Vec<f64>, cdf: Vec<f64>, interpolation: Interpolation) -> Result<Self, CdfError> {
        if sizes.len() != cdf.len() || sizes.is_empty() {
            let value = format!("{} sizes and {} probabilities", sizes.len(), cdf.len());
            return Err(CdfError { place: String::new(), value, allowed: "equal, non-empty columns" });
        }
        if interpolation == Interpolation::Linear && sizes.len() < 2 {
            return Err(CdfError { place: String::new(), value: "1 row".into(), allowed: "2 rows or more" });
        }
        for i in 0..sizes.len() {
            let row = i + 1;
            if !sizes[i].is_finite() || sizes[i] < 0.0 || sizes[i] > crate::config::MAX_FLOW_BYTES as f64 {
                return cdf_err(format!("size_bytes row {row}"), sizes[i], "a size in [0, 1e12] bytes");
            }
            if !cdf[i].is_finite() || !(0.0..=1.0).contains(&cdf[i]) {
                return cdf_err(format!("cdf row {row}"), cdf[i], "a probability in [0, 1]");
            }
            if i > 0 && sizes[i] < sizes[i - 1] {
                return cdf_err(format!("size_bytes row {row}"), sizes[i], "sizes that never decrease");
            }
            if i > 0 && cdf[i] < cdf[i - 1] {
                return cdf_err(format!("cdf row {row}"), cdf[i], "probabilities that never decrease");
            }
        }
        let last = *cdf.last().unwrap();
        if (last - 1.0).abs() > 1e-9 {
            return cdf_err(format!("cdf row {}", cdf.len()), last, "a last probability of 1");
        }
        Ok(EmpiricalCdf { sizes, cdf, interpolation })
    }

    /// Size in bytes (before rounding) at quantile `u` in [0, 1).
    fn quantile(&self, u: f64) -> f64 {
        // First row whose cdf reaches u.
        let i = self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1);
        match self.interpolation {
            Interpolation::Step => self.sizes[i],
            Interpolation::Linear => {
                if i == 0 {
                    return self.sizes[0];
                }
                let (c0, c1) = (self.cdf[i - 1], self.cdf[i]);
                let (s0, s1) = (self.sizes[i - 1], self.sizes[i]);
                if c1 <= c0 {
                    s1
                } else {
                    s0 + (u - c0) / (c1 - c0) * (s1 - s0)
                }
            }
        }
    }

    /// A flow size in bytes, a whole number of `format`'s packets, from a uniform draw `u` in [0, 1).
    pub fn sample_bytes(&self, u: f64, format: PacketFormat) -> u64 {
        format.round_up_to_packets(self.quantile(u))
    }

    /// Mean number of packets per flow of the distribution rounded to `format`'s packets, exactly.
    pub fn mean_packets(&self, format: PacketFormat) -> f64 {
        let m = format.mss_bytes as f64;
        // Integral of max(1, ceil(x / m)) over x in [0, x]: the rounded size in packets, integrated.
        let integral = |x: f64| {
            let n = (x / m).floor();
            let r = x - n * m;
            m * n * (n + 1.0) / 2.0 + (n + 1.0) * r
        };
        let packets_at = |x: f64| (x / m).ceil().max(1.0);
        let mut mean = 0.0;
        let mut prev_c = 0.0;
        for i in 0..self.sizes.len() {
            let mass = self.cdf[i] - prev_c;
            if mass > 0.0 {
                match self.interpolation {
                    Interpolation::Step => mean += mass * packets_at(self.sizes[i]),
                    Interpolation::Linear => {
                        if i == 0 || self.sizes[i] == self.sizes[i - 1] {
                            mean += mass * packets_at(self.sizes[i]);
                        } else {
                            let (a, b) = (self.sizes[i - 1], self.sizes[i]);
                            // Sizes in (0, m] are 1 packet, which ceil also gives; only x = 0 differs, a null set.
                            mean += mass * (integral(b) - integral(a)) / (b - a);
                        }
                    }
                }
            }
            prev_c = self.cdf[i];
        }
        mean
    }

    /// Mean wire bytes per flow (payload and headers): the quantity the load is defined with.
    pub fn mean_wire_bytes(&self, format: PacketFormat) -> f64 {
        self.mean_packets(format) * format.full_wire_bytes() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::Rng;

    const F: PacketFormat = PacketFormat::DEFAULT;

    fn websearch() -> EmpiricalCdf {
        // The pFabric ns-2 web search rows, in packets.
        let pk = [6., 6., 13., 19., 33., 53., 133., 667., 1333., 3333., 6667., 20000.];
        let c = [0., 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1.];
        EmpiricalCdf::new(pk.iter().map(|p| p * 1460.).collect(), c.to_vec(), Interpolation::Linear).unwrap()
    }

    #[test]
    fn sampled_mean_matches_the_closed_form() {
        let cdf = websearch();
        let mut rng = Rng::new(11);
        let n = 400_000;
        let sampled = (0..n).map(|_| cdf.sample_bytes(rng.uniform(), F) as f64).sum::<f64>() / n as f64 / 1460.0;
        let exact = cdf.mean_packets(F);
        // Unrounded linear mean is 1140.98 packets; rounding up adds about half a packet.
        assert!((exact - 1141.5).abs() < 0.2, "{exact}");
        assert!((sampled - exact).abs() / exact < 0.02, "{sampled} vs {exact}");
    }

    #[test]
    fn point_mass_and_step() {
        let cdf = websearch();
        assert_eq!(cdf.sample_bytes(0.0, F), 6 * 1460);
        assert_eq!(cdf.sample_bytes(0.1, F), 6 * 1460);
        let step = EmpiricalCdf::new(vec![1.0, 10_000.0], vec![0.5, 1.0], Interpolation::Step).unwrap();
        assert_eq!(step.sample_bytes(0.2, F), 1460);
        assert_eq!(step.sample_bytes(0.7, F), 7 * 1460);
        assert!((step.mean_packets(F) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn rejects_bad_rows() {
        let bad = |s: Vec<f64>, c: Vec<f64>| EmpiricalCdf::new(s, c, Interpolation::Linear).is_err();
        assert!(bad(vec![10.0, 5.0], vec![0.0, 1.0]));
        assert!(bad(vec![1.0, 5.0], vec![0.6, 0.5]));
        assert!(bad(vec![1.0, 5.0], vec![0.0, 0.9]));
        assert!(bad(vec![f64::NAN, 5.0], vec![0.0, 1.0]));
    }
}
