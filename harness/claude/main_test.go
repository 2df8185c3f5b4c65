package claude

import (
	"testing"

	"github.com/atelier-studio/atelier/internal/teststate"
)

// TestMain gives the tests a private state directory (workspace secrets).
func TestMain(m *testing.M) { teststate.Main(m) }
