package config

import (
	"regexp"
	"strings"
)

// secretValue matches text that looks like a credential: the prefixes of the
// common API keys and tokens, private keys, JWTs, bearer headers, and URLs
// that carry a password. Config files only ever name environment variables;
// a value like these in one is refused, never stored or echoed.
var secretValue = regexp.MustCompile(strings.Join([]string{
	`sk-[A-Za-z0-9_-]{16,}`,                          // OpenAI, Anthropic (sk-ant-), OpenRouter (sk-or-)
	`gh[pousr]_[A-Za-z0-9]{30,}`,                     // GitHub tokens
	`github_pat_[A-Za-z0-9_]{30,}`,                   // GitHub fine-grained tokens
	`glpat-[A-Za-z0-9_-]{20,}`,                       // GitLab
	`xox[abposr]-[A-Za-z0-9-]{10,}`,                  // Slack
	`AKIA[0-9A-Z]{16}`,                               // AWS access key id
	`AIza[0-9A-Za-z_-]{35}`,                          // Google API key
	`hf_[A-Za-z0-9]{30,}`,                            // Hugging Face
	`-----BEGIN [A-Z ]*PRIVATE KEY`,                  // PEM private keys
	`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.`, // JWT
	`(?i)bearer\s+[A-Za-z0-9._~+/=-]{20,}`,
	`://[^/\s:@]+:[^/\s@]+@`, // a password inside a URL
}, "|"))

// looksSecret reports whether s contains something that looks like a
// credential.
func looksSecret(s string) bool { return secretValue.MatchString(s) }

// secretName reports whether a key or environment variable name says it
// holds a secret: API_KEY, GITHUB_TOKEN, db_password, client-secret...
// It works on the name's words, so KEYBOARD or MONKEY_PATH do not count.
func secretName(name string) bool {
	words := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool {
		return r == '_' || r == '-' || r == '.'
	})
	for _, w := range words {
		switch w {
		case "KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD",
			"PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "PAT":
			return true
		}
	}
	return false
}

// secretIn returns true when any string inside v looks like a secret.
func secretIn(v any) bool {
	switch v := v.(type) {
	case string:
		return looksSecret(v)
	case []any:
		for _, e := range v {
			if secretIn(e) {
				return true
			}
		}
	case []map[string]any:
		for _, e := range v {
			if secretIn(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range v {
			if looksSecret(k) || secretIn(e) {
				return true
			}
		}
	}
	return false
}

const secretAdvice = "config files never hold secrets: put the key or token in an environment variable and set api_key_env to the variable's name (for an agent's env, write the value as \"${NAME}\")"
