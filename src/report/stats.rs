//! Rank statistics for calibrating the area model against synthesis.

/// The ranks of `xs`, 1 for the smallest; tied values share the mean of the ranks they span
/// (so `[10, 20, 20, 30]` ranks `[1, 2.5, 2.5, 4]`).
pub fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut out = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        // Positions i..=j (0-based) are ranks i+1..=j+1; their mean is (i+j)/2 + 1.
        let r = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = r;
        }
        i = j + 1;
    }
    out
}

/// Pearson's correlation of two equally long samples; `None` if they are shorter than two
/// or either is constant.
pub fn pearson(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    let n = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / n;
    let my = ys.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some(sxy / (sxx * syy).sqrt())
}

/// Spearman's rank correlation: Pearson's correlation of the ranks ([`ranks`], ties
/// averaged). 1 when both samples order the items the same way, -1 when reversed; `None`
/// if there are fewer than two items or one sample is constant.
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() {
        return None;
    }
    pearson(&ranks(xs), &ranks(ys))
}

/// How two measures order pairs of designs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PairAgreement {
    /// Pairs both measures order strictly the same way.
    pub agree: usize,
    /// Pairs the two measures order strictly opposite ways.
    pub disagree: usize,
    /// Pairs the reference (synthesis) separates but the model ties.
    pub model_ties: usize,
    /// Pairs the model separates but the reference ties.
    pub reference_ties: usize,
    /// Pairs both measures tie.
    pub both_tie: usize,
}

impl PairAgreement {
    /// Counts one pair: `model` is the model's (a, b) and `reference` the reference's.
    pub fn add(&mut self, model: (f64, f64), reference: (f64, f64)) {
        let m = model.0.total_cmp(&model.1);
        let r = reference.0.total_cmp(&reference.1);
        use std::cmp::Ordering::Equal;
        match (m, r) {
            (Equal, Equal) => self.both_tie += 1,
            (Equal, _) => self.model_ties += 1,
            (_, Equal) => self.reference_ties += 1,
            (m, r) if m == r => self.agree += 1,
            _ => self.disagree += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_average_ties() {
        assert_eq!(ranks(&[10.0, 20.0, 20.0, 30.0]), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(ranks(&[3.0, 1.0, 2.0]), vec![3.0, 1.0, 2.0]);
        assert_eq!(ranks(&[5.0, 5.0, 5.0]), vec![2.0, 2.0, 2.0]);
        assert!(ranks(&[]).is_empty());
    }

    #[test]
    fn spearman_hand_cases() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 40.0, 90.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
    }
}
