package bench

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/toolguard/toolguard/service"
)

// syntaxFromEnv sets the bench server's syntax check bounds from their
// environment twins, as serve does.
func syntaxFromEnv(cfg *service.Config) error {
	if v := os.Getenv("TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY: %w", err)
		}
		cfg.SyntaxMaxMemory = n
	}
	if v := os.Getenv("TOOLGUARD_SYNTAX_CHECK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("TOOLGUARD_SYNTAX_CHECK_TIMEOUT: %w", err)
		}
		cfg.SyntaxTimeout = d
	}
	return nil
}
