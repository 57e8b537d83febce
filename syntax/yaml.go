package syntax

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

func init() { register("yaml", []string{".yaml", ".yml"}, nil, 36, checkYAML) }

// yamlLine finds the line in go.yaml.in/yaml's message ("yaml: line 3:
// did not find expected key"); it gives no column.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// checkYAML decodes every document of the stream into nodes, so nothing
// but the syntax is checked (no types, no duplicate keys of a map). The
// library stops at the first error; its column is unknown (0).
func checkYAML(ctx context.Context, src []byte, _ int) ([]Error, error) {
	return bounded(ctx, func() ([]Error, error) {
		dec := yaml.NewDecoder(bytes.NewReader(src))
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			if err != nil {
				return []Error{yamlError(err)}, nil
			}
		}
	})
}

func yamlError(err error) Error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Error{Line: line, Message: msg[len(m[0]):]}
	}
	return Error{Message: strings.TrimPrefix(msg, "yaml: ")}
}
