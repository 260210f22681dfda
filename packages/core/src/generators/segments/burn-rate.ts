/** Ids handed out per second over roughly the last minute, from sparse (at, issued) samples. */
export class BurnRate {
  private readonly samples: { at: number; issued: number }[] = [];

  constructor(
    at: number,
    private readonly windowMs = 60_000,
    private readonly spacingMs = 1_000,
  ) {
    this.samples.push({ at, issued: 0 });
  }

  /** Notes the count at monotonic time `at`; cheap enough for every stats() call and segment swap. */
  record(at: number, issued: number): void {
    const last = this.samples[this.samples.length - 1]!;
    if (at - last.at < this.spacingMs) return;
    this.samples.push({ at, issued });
    // Keep one sample at least a window old, so the rate always spans the whole window.
    while (this.samples.length > 2 && at - this.samples[1]!.at >= this.windowMs) this.samples.shift();
  }

  perSecond(at: number, issued: number): number {
    const first = this.samples[0]!;
    return at > first.at ? ((issued - first.issued) * 1000) / (at - first.at) : 0;
  }
}
