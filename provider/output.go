package provider

import "encoding/json"

// ToolResultOutput is what the model is told about a tool call's outcome:
// [TextOutput], [JSONOutput], [ExecutionDeniedOutput], [ErrorTextOutput],
// [ErrorJSONOutput] or [ContentOutput].
type ToolResultOutput interface {
	// OutputType returns the output's JSON discriminator ("text", "json",
	// "execution-denied", "error-text", "error-json" or "content").
	OutputType() string
	isToolResultOutput()
}

// TextOutput is a plain text result.
type TextOutput struct {
	Value           string
	ProviderOptions ProviderOptions
}

// JSONOutput is a JSON result.
type JSONOutput struct {
	// Value is a JSON value; nil means null.
	Value           json.RawMessage
	ProviderOptions ProviderOptions
}

// ExecutionDeniedOutput says the call was not run because it was denied.
type ExecutionDeniedOutput struct {
	Reason          string
	ProviderOptions ProviderOptions
}

// ErrorTextOutput reports a failure as text.
type ErrorTextOutput struct {
	Value           string
	ProviderOptions ProviderOptions
}

// ErrorJSONOutput reports a failure as a JSON value.
type ErrorJSONOutput struct {
	Value           json.RawMessage
	ProviderOptions ProviderOptions
}

// ContentOutput is a result made of several parts: text, files and custom
// parts.
type ContentOutput struct {
	Value           []ContentOutputPart
	ProviderOptions ProviderOptions
}

// OutputType returns "text".
func (TextOutput) OutputType() string { return "text" }

// OutputType returns "json".
func (JSONOutput) OutputType() string { return "json" }

// OutputType returns "execution-denied".
func (ExecutionDeniedOutput) OutputType() string { return "execution-denied" }

// OutputType returns "error-text".
func (ErrorTextOutput) OutputType() string { return "error-text" }

// OutputType returns "error-json".
func (ErrorJSONOutput) OutputType() string { return "error-json" }

// OutputType returns "content".
func (ContentOutput) OutputType() string { return "content" }

// OutputProviderOptions returns the provider options of any tool result
// output.
func OutputProviderOptions(o ToolResultOutput) ProviderOptions {
	switch o := o.(type) {
	case TextOutput:
		return o.ProviderOptions
	case JSONOutput:
		return o.ProviderOptions
	case ExecutionDeniedOutput:
		return o.ProviderOptions
	case ErrorTextOutput:
		return o.ProviderOptions
	case ErrorJSONOutput:
		return o.ProviderOptions
	case ContentOutput:
		return o.ProviderOptions
	}
	return nil
}

func (TextOutput) isToolResultOutput()            {}
func (JSONOutput) isToolResultOutput()            {}
func (ExecutionDeniedOutput) isToolResultOutput() {}
func (ErrorTextOutput) isToolResultOutput()       {}
func (ErrorJSONOutput) isToolResultOutput()       {}
func (ContentOutput) isToolResultOutput()         {}

// ContentOutputPart is a part of a [ContentOutput]: a [TextPart], a
// [FilePart] or a [CustomPart].
type ContentOutputPart interface{ isContentOutputPart() }

func (TextPart) isContentOutputPart()   {}
func (FilePart) isContentOutputPart()   {}
func (CustomPart) isContentOutputPart() {}

// FileData holds a file's content or says where to find it: [FileBytes],
// [FileURL], [FileReference] or [FileText].
type FileData interface{ isFileData() }

// FileBytes is a file's content. It marshals as base64.
type FileBytes struct{ Data []byte }

// FileURL points at a file.
type FileURL struct{ URL string }

// FileReference names a file stored with a provider: a map from provider
// name to that provider's file id.
type FileReference struct{ Reference map[string]string }

// FileText is a text file's content.
type FileText struct{ Text string }

func (FileBytes) isFileData()     {}
func (FileURL) isFileData()       {}
func (FileReference) isFileData() {}
func (FileText) isFileData()      {}
