// Amounts for reading: a token amount (a decimal string with up to 78 digits, as ethers' formatUnits gives) rounded
// to a few decimals, with thousands separators. The page shows this form and keeps the exact one for the title
// (hover) and for copying.

/** Decimals shown by default. */
export const READING_DECIMALS = 4;

/**
 * `value` (a non-negative or negative decimal string such as "1234.567890123456789") rounded half-up to `decimals`
 * places, trailing zeros dropped, the integer part grouped by thousands ("1,234.5679"). A non-zero amount that
 * rounds to zero reads "<0.0001". Anything that is not a decimal number is returned as it is.
 */
export function formatForReading(value: string, decimals = READING_DECIMALS): string {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value.trim());
  if (!m) return value;
  const [, sign, int, frac = ''] = m;
  const scale = 10n ** BigInt(decimals);
  const exact = BigInt(int + frac.padEnd(decimals, '0').slice(0, decimals));
  const roundUp = frac.length > decimals && frac[decimals]! >= '5';
  const scaled = exact + (roundUp ? 1n : 0n);
  if (scaled === 0n) return /[1-9]/.test(int + frac) ? `${sign}<${(1 / 10 ** decimals).toFixed(decimals)}` : '0';
  const whole = (scaled / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const part = (scaled % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${sign}${whole}${part ? `.${part}` : ''}`;
}
