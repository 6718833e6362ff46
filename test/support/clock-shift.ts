/**
 * A `--require` preload that moves this process's host clock: `Date.now()` and `new Date()` read
 * RSMQ_TEST_CLOCK_SHIFT_MS ms off the real time (timers are not moved: they measure lengths, not
 * times). What a host whose clock is wrong looks like to the code it runs.
 *
 * Usage: RSMQ_TEST_CLOCK_SHIFT_MS=30000 node --require build/test/support/clock-shift.js program.js
 */
const shiftMs = Number(process.env.RSMQ_TEST_CLOCK_SHIFT_MS ?? 0);

if (Number.isFinite(shiftMs) && shiftMs !== 0) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class ShiftedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(realNow() + shiftMs);
      else super(...(args as [string | number | Date]));
    }

    static override now(): number {
      return realNow() + shiftMs;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}

export {};
