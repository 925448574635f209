package provider

import "encoding/json"

// Role is the role of a [Message].
type Role string

// The message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a prompt: a [SystemMessage], [UserMessage],
// [AssistantMessage] or [ToolMessage].
type Message interface {
	// Role reports the message's role.
	Role() Role
	isMessage()
}

// SystemMessage holds instructions for the model.
type SystemMessage struct {
	Content         string
	ProviderOptions ProviderOptions
}

// UserMessage is what the user said: text and files.
type UserMessage struct {
	Content         []UserPart
	ProviderOptions ProviderOptions
}

// AssistantMessage is what the model said earlier: text, reasoning, files,
// tool calls, and the results of provider-executed tools.
type AssistantMessage struct {
	Content         []AssistantPart
	ProviderOptions ProviderOptions
}

// ToolMessage carries tool results (and answers to approval requests) back
// to the model.
type ToolMessage struct {
	Content         []ToolPart
	ProviderOptions ProviderOptions
}

// Role returns [RoleSystem].
func (SystemMessage) Role() Role { return RoleSystem }

// Role returns [RoleUser].
func (UserMessage) Role() Role { return RoleUser }

// Role returns [RoleAssistant].
func (AssistantMessage) Role() Role { return RoleAssistant }

// Role returns [RoleTool].
func (ToolMessage) Role() Role { return RoleTool }

func (SystemMessage) isMessage()    {}
func (UserMessage) isMessage()      {}
func (AssistantMessage) isMessage() {}
func (ToolMessage) isMessage()      {}

// UserPart is a part of a [UserMessage]: a [TextPart] or a [FilePart].
type UserPart interface{ isUserPart() }

// AssistantPart is a part of an [AssistantMessage]: a [TextPart],
// [FilePart], [ReasoningPart], [ReasoningFilePart], [CustomPart],
// [ToolCallPart], [ToolResultPart] (of a provider-executed tool) or
// [ToolApprovalRequestPart].
type AssistantPart interface{ isAssistantPart() }

// ToolPart is a part of a [ToolMessage]: a [ToolResultPart] or a
// [ToolApprovalResponsePart].
type ToolPart interface{ isToolPart() }

// TextPart is text.
type TextPart struct {
	Text            string
	ProviderOptions ProviderOptions
}

// FilePart is a file: an image, a PDF, audio...
type FilePart struct {
	// Data holds the file's bytes or where to find them.
	Data FileData
	// MediaType is the IANA media type ("image/png") or only its top-level
	// segment ("image") when the exact type is unknown.
	MediaType string
	// Filename is the file's name, if known.
	Filename        string
	ProviderOptions ProviderOptions
}

// ReasoningPart is reasoning text the model produced earlier.
type ReasoningPart struct {
	Text            string
	ProviderOptions ProviderOptions
}

// ReasoningFilePart is a file the model produced while reasoning.
type ReasoningFilePart struct {
	Data            FileData
	MediaType       string
	ProviderOptions ProviderOptions
}

// CustomPart is provider-specific content identified by Kind
// ("<provider>.<type>").
type CustomPart struct {
	Kind            string
	ProviderOptions ProviderOptions
}

// ToolCallPart is a tool call the model made earlier.
type ToolCallPart struct {
	ToolCallID string
	ToolName   string
	// Input is the call's input as a JSON value.
	Input json.RawMessage
	// ProviderExecuted is true when the provider ran the tool.
	ProviderExecuted bool
	ProviderOptions  ProviderOptions
}

// ToolResultPart is the result of a tool call.
type ToolResultPart struct {
	ToolCallID      string
	ToolName        string
	Output          ToolResultOutput
	ProviderOptions ProviderOptions
}

// ToolApprovalRequestPart records that a tool call waited for approval. It
// lives in conversation history only: the ai package removes it before a
// prompt reaches a model.
type ToolApprovalRequestPart struct {
	ApprovalID string
	ToolCallID string
	// Reason explains why approval is needed.
	Reason string
	// IsAutomatic is true when a policy decided without asking anybody.
	IsAutomatic bool
	// Signature authenticates the request when approvals are signed.
	Signature string
	// InputSchemaInput is the call's input before validation, when it
	// differed from the validated input.
	InputSchemaInput json.RawMessage
	ProviderOptions  ProviderOptions
}

// ToolApprovalResponsePart answers a [ToolApprovalRequestPart].
type ToolApprovalResponsePart struct {
	ApprovalID string
	Approved   bool
	// Reason explains the decision.
	Reason string
	// ProviderExecuted is true when the approved tool is run by the
	// provider; only such responses are sent to the model.
	ProviderExecuted bool
	ProviderOptions  ProviderOptions
}

func (TextPart) isUserPart()                     {}
func (FilePart) isUserPart()                     {}
func (TextPart) isAssistantPart()                {}
func (FilePart) isAssistantPart()                {}
func (ReasoningPart) isAssistantPart()           {}
func (ReasoningFilePart) isAssistantPart()       {}
func (CustomPart) isAssistantPart()              {}
func (ToolCallPart) isAssistantPart()            {}
func (ToolResultPart) isAssistantPart()          {}
func (ToolApprovalRequestPart) isAssistantPart() {}
func (ToolResultPart) isToolPart()               {}
func (ToolApprovalResponsePart) isToolPart()     {}
