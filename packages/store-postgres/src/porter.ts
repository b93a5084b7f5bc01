// The Porter stemmer as SQLite's FTS5 `porter` tokenizer applies it (Martin Porter's reference C
// version, with its `bli` → `ble` and `logi` → `log` departures from the paper). The team store
// stems in TypeScript so its tsvectors hold exactly the tokens the local index's FTS5 table
// holds; `test/textVectors.test.ts` compares the two on generated words.

/** Tokens longer than this are not stemmed (FTS5_PORTER_MAX_TOKEN). */
const MAX_STEMMED = 64;

class Word {
  b: string[];
  k: number;
  j = 0;
  constructor(word: string) {
    this.b = [...word];
    this.k = this.b.length - 1;
  }
  cons(i: number): boolean {
    const c = this.b[i]!;
    if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false;
    if (c === 'y') return i === 0 ? true : !this.cons(i - 1);
    return true;
  }
  /** The number of consonant sequences between 0 and j. */
  m(): number {
    let n = 0;
    let i = 0;
    for (;;) {
      if (i > this.j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    for (;;) {
      for (;;) {
        if (i > this.j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      for (;;) {
        if (i > this.j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }
  vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }
  doubleC(j: number): boolean {
    return j >= 1 && this.b[j] === this.b[j - 1] && this.cons(j);
  }
  cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const c = this.b[i];
    return c !== 'w' && c !== 'x' && c !== 'y';
  }
  ends(s: string): boolean {
    const len = s.length;
    if (len > this.k + 1) return false;
    for (let i = 0; i < len; i++) if (this.b[this.k - len + 1 + i] !== s[i]) return false;
    this.j = this.k - len;
    return true;
  }
  setTo(s: string): void {
    this.b.splice(this.j + 1, this.k - this.j, ...s);
    this.k = this.j + s.length;
  }
  r(s: string): void {
    if (this.m() > 0) this.setTo(s);
  }
}

function step1ab(w: Word): void {
  if (w.b[w.k] === 's') {
    if (w.ends('sses')) w.k -= 2;
    else if (w.ends('ies')) w.setTo('i');
    else if (w.b[w.k - 1] !== 's') w.k--;
  }
  if (w.ends('eed')) {
    if (w.m() > 0) w.k--;
  } else if ((w.ends('ed') || w.ends('ing')) && w.vowelInStem()) {
    w.k = w.j;
    if (w.ends('at')) w.setTo('ate');
    else if (w.ends('bl')) w.setTo('ble');
    else if (w.ends('iz')) w.setTo('ize');
    else if (w.doubleC(w.k)) {
      w.k--;
      const c = w.b[w.k];
      if (c === 'l' || c === 's' || c === 'z') w.k++;
    } else if (w.m() === 1 && w.cvc(w.k)) w.setTo('e');
  }
}

function step1c(w: Word): void {
  if (w.ends('y') && w.vowelInStem()) w.b[w.k] = 'i';
}

const STEP2: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  a: [['ational', 'ate'], ['tional', 'tion']],
  c: [['enci', 'ence'], ['anci', 'ance']],
  e: [['izer', 'ize']],
  l: [['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous']],
  o: [['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate']],
  s: [['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous']],
  t: [['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble']],
  g: [['logi', 'log']],
};

const STEP3: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  e: [['icate', 'ic'], ['ative', ''], ['alize', 'al']],
  i: [['iciti', 'ic']],
  l: [['ical', 'ic'], ['ful', '']],
  s: [['ness', '']],
};

const STEP4: Readonly<Record<string, readonly string[]>> = {
  a: ['al'],
  c: ['ance', 'ence'],
  e: ['er'],
  i: ['ic'],
  l: ['able', 'ible'],
  n: ['ant', 'ement', 'ment', 'ent'],
  o: ['ion', 'ou'],
  s: ['ism'],
  t: ['ate', 'iti'],
  u: ['ous'],
  v: ['ive'],
  z: ['ize'],
};

function replaceFirst(w: Word, table: readonly (readonly [string, string])[] | undefined): void {
  for (const [suffix, by] of table ?? []) {
    if (w.ends(suffix)) {
      w.r(by);
      return;
    }
  }
}

function step4(w: Word): void {
  const suffixes = STEP4[w.b[w.k - 1] ?? ''];
  if (!suffixes) return;
  let found = false;
  for (const s of suffixes) {
    if (!w.ends(s)) continue;
    if (s === 'ion' && !(w.j >= 0 && (w.b[w.j] === 's' || w.b[w.j] === 't'))) continue;
    found = true;
    break;
  }
  if (found && w.m() > 1) w.k = w.j;
}

function step5(w: Word): void {
  w.j = w.k;
  if (w.b[w.k] === 'e') {
    const a = w.m();
    if (a > 1 || (a === 1 && !w.cvc(w.k - 1))) w.k--;
  }
  if (w.b[w.k] === 'l' && w.doubleC(w.k) && w.m() > 1) w.k--;
}

/** The Porter stem of a lower-case token (tokens of 2 or fewer and over 64 characters unchanged). */
export function porterStem(token: string): string {
  if (token.length <= 2 || token.length > MAX_STEMMED) return token;
  const w = new Word(token);
  step1ab(w);
  if (w.k > 0) {
    step1c(w);
    replaceFirst(w, STEP2[w.b[w.k - 1] ?? '']);
    replaceFirst(w, STEP3[w.b[w.k] ?? '']);
    step4(w);
    step5(w);
  }
  return w.b.slice(0, w.k + 1).join('');
}
