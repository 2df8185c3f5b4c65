package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/moby/client"
)

// endpoint is where the engine listens and the TLS files to reach it.
type endpoint struct {
	Host string
	TLS  *tlsFiles
}

type tlsFiles struct{ CA, Cert, Key string }

// resolveEndpoint finds the engine the way the docker CLI does.
func resolveEndpoint(opts EngineOptions) (endpoint, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	host := opts.Host
	var tls *tlsFiles
	if host == "" {
		host = getenv(client.EnvOverrideHost)
		if dir := getenv(client.EnvOverrideCertPath); host != "" && dir != "" && getenv(client.EnvTLSVerify) != "" {
			tls = &tlsFiles{filepath.Join(dir, "ca.pem"), filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")}
		}
	}
	if host == "" {
		ep, err := contextEndpoint(getenv, opts.ConfigDir)
		if err != nil {
			return endpoint{}, err
		}
		host, tls = ep.Host, ep.TLS
	}
	if host == "" {
		host = client.DefaultDockerHost
	}
	if strings.HasPrefix(host, "ssh://") {
		return endpoint{}, fmt.Errorf("%w %s: ssh hosts need the docker CLI's helper; forward the socket (ssh -L) and use unix:// or tcp://", ErrUnsupportedHost, host)
	}
	if _, err := client.ParseHostURL(host); err != nil {
		return endpoint{}, fmt.Errorf("%w %q: %w", ErrUnsupportedHost, host, err)
	}
	return endpoint{Host: host, TLS: tls}, nil
}

// contextEndpoint reads the current Docker context (DOCKER_CONTEXT, else the
// config's currentContext) from the CLI's configuration directory. The
// "default" context, or none, gives an empty endpoint.
func contextEndpoint(getenv func(string) string, dir string) (endpoint, error) {
	if dir == "" {
		dir = getenv("DOCKER_CONFIG")
	}
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return endpoint{}, nil
		}
		dir = filepath.Join(home, ".docker")
	}
	name := getenv("DOCKER_CONTEXT")
	if name == "" {
		b, err := os.ReadFile(filepath.Join(dir, "config.json"))
		if errors.Is(err, fs.ErrNotExist) {
			return endpoint{}, nil
		}
		if err != nil {
			return endpoint{}, fmt.Errorf("read docker config: %w", err)
		}
		var cfg struct {
			CurrentContext string `json:"currentContext"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			return endpoint{}, fmt.Errorf("read docker config %s: %w", filepath.Join(dir, "config.json"), err)
		}
		name = cfg.CurrentContext
	}
	if name == "" || name == "default" {
		return endpoint{}, nil
	}
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:])
	metaPath := filepath.Join(dir, "contexts", "meta", id, "meta.json")
	b, err := os.ReadFile(metaPath)
	if err != nil {
		return endpoint{}, fmt.Errorf("docker context %q: %w", name, err)
	}
	var meta struct {
		Endpoints map[string]struct {
			Host string `json:"Host"`
		} `json:"Endpoints"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return endpoint{}, fmt.Errorf("docker context %q: %s: %w", name, metaPath, err)
	}
	ep := endpoint{Host: meta.Endpoints["docker"].Host}
	if ep.Host == "" {
		return endpoint{}, fmt.Errorf("docker context %q has no docker endpoint", name)
	}
	tlsDir := filepath.Join(dir, "contexts", "tls", id, "docker")
	files := tlsFiles{filepath.Join(tlsDir, "ca.pem"), filepath.Join(tlsDir, "cert.pem"), filepath.Join(tlsDir, "key.pem")}
	if _, err := os.Stat(files.CA); err == nil {
		ep.TLS = &files
	}
	return ep, nil
}
