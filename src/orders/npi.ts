/** Identifier checks for 503A orders and doctor verification. */

/** Luhn check over a digit string (rightmost digit is the check digit). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A US NPI: 10 digits whose check digit is the Luhn digit of the number prefixed with 80840 (CMS). */
export function isValidNpi(value: unknown): boolean {
  return typeof value === 'string' && /^\d{10}$/.test(value) && luhnValid(`80840${value}`);
}

/**
 * A DEA registration number: 2 letters + 7 digits; check digit = last digit of
 * (d1 + d3 + d5) + 2 × (d2 + d4 + d6).
 */
export function isValidDea(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[A-Za-z]{2}\d{7}$/.test(value)) return false;
  const d = value.slice(2).split('').map(Number);
  const check = (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10;
  return check === d[6];
}

/** A real calendar date YYYY-MM-DD. */
export function isRealDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  // the calendar's rule (proleptic Gregorian, as Date's) without building a Date: every order body's dates pass here
  const y = Number(value.slice(0, 4));
  const m = Number(value.slice(5, 7));
  const d = Number(value.slice(8, 10));
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);
}
