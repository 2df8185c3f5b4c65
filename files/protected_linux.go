package files

// sameName compares two file names as Linux file systems do: byte for byte.
func sameName(a, b string) bool { return a == b }
