// The score of an indicator, after MISP's polynomial decaying model:
//
//   score(t) = confidence × (1 − (t / τ)^(1/δ))
//
// t is the time since the feed last asserted the indicator (STIX modified,
// MISP timestamp, or the sync that listed it), τ its lifetime (from then to
// valid_until, or the feed's default lifetime), δ the feed's decay speed
// (1 decays linearly; above 1 fast at first, below 1 slowly at first). At
// valid_until the score is 0. An indicator matches while it is valid
// (valid_from ≤ now < valid_until) and its score is at least the feed's
// threshold. clickhouse/tables/threatfeed-indicators.ts computes the same
// formula in SQL for the library.

export interface DecayInputs {
  confidence: number;
  /** Epoch milliseconds. */
  validFrom: number;
  assertedAt: number;
  expiresAt: number;
  decaySpeed: number;
  threshold: number;
}

export function scoreAt(claim: DecayInputs, now: number): number {
  if (now >= claim.expiresAt) return 0;
  if (now <= claim.assertedAt) return claim.confidence;
  const lifetime = Math.max(1, claim.expiresAt - claim.assertedAt);
  return claim.confidence * Math.max(0, 1 - Math.pow((now - claim.assertedAt) / lifetime, 1 / claim.decaySpeed));
}

export function isLive(claim: DecayInputs, now: number): boolean {
  return now >= claim.validFrom && now < claim.expiresAt && scoreAt(claim, now) >= claim.threshold;
}
