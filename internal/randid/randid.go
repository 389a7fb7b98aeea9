// Package randid makes random identifiers of letters and digits (object ids, nonces) without modulo bias.
package randid

// Alphabet is the characters identifiers are made of.
const Alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Alnum returns n characters of Alphabet drawn from read (crypto/rand.Read in production; a parameter so tests
// can inject failures). Bytes of 248 and above are skipped (248 = 4 x 62), so every character is equally likely.
func Alnum(read func([]byte) (int, error), n int) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, 32)
	for len(out) < n {
		if _, err := read(buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if b < 248 {
				out = append(out, Alphabet[int(b)%len(Alphabet)])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out), nil
}
