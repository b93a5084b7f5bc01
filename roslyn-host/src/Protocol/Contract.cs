// The wire contract of roslyn-host: every frame that crosses stdio is declared here, and mirrored
// by ONE TypeScript file, packages/parse-cs/src/roslyn/protocol.ts. Change both together and bump
// ProtocolInfo.ProtocolVersion on any incompatible change.
//
// Framing: one JSON object per line (UTF-8, '\n'), camelCase property names, null properties omitted.
// stdout carries frames only; logs go to stderr.
using System.Text.Json;

namespace CodeAgent.RoslynHost.Protocol;

public static class ProtocolInfo
{
    public const int ProtocolVersion = 1;

    /// <summary>Changes whenever the produced symbols/edges change for the same input.</summary>
    public const string ExtractorVersion = "roslyn-host/1.1.0";

    public const int DefaultQueueSize = 64;
    public const int DefaultBatchDeadlineMs = 30_000;
    public const int DefaultLoadDeadlineMs = 120_000;
}

/// <summary>Method names. Requests handled on the reader thread (never queued) are marked inline.</summary>
public static class Methods
{
    public const string Initialize = "initialize";      // inline
    public const string Ping = "ping";                  // inline
    public const string Cancel = "cancel";              // inline
    public const string Shutdown = "shutdown";          // inline
    public const string LoadProject = "loadProject";
    public const string Analyze = "analyze";
    public const string UnloadProject = "unloadProject";
    public const string PrepareRazor = "prepareRazor";
    /// <summary>Test hook, only registered with the host argument --enable-test-methods.</summary>
    public const string DebugSleep = "debug/sleep";
}

/// <summary>Stable wire error codes (a subset matches @ca/schema ErrorCode).</summary>
public static class ErrorCodes
{
    public const string SemanticUnavailable = "semantic_unavailable";
    public const string ProjectLoadFailed = "project_load_failed";
    public const string PluginBlocked = "plugin_blocked";
    /// <summary>A load warning: a file the safe reader refused (link, FIFO, device, over its cap, outside the repository).</summary>
    public const string FileRefused = "file_refused";
    public const string Timeout = "timeout";
    public const string OomRestart = "oom_restart";
    public const string Backpressure = "backpressure";
    public const string Cancelled = "cancelled";
    public const string InvalidRequest = "invalid_request";
    public const string MethodNotFound = "method_not_found";
    public const string Internal = "internal";
}

// ---------------------------------------------------------------- frames

/// <summary>Client → host. <c>deadlineMs</c> overrides the method's default deadline.</summary>
public sealed record RequestFrame(long Id, string Method, JsonElement? Params, int? DeadlineMs);

/// <summary>Host → client. Exactly one of result / error is set.</summary>
public sealed record ResponseFrame(long? Id, object? Result, ErrorPayload? Error);

public sealed record ErrorPayload(string Code, string Message, object? Data = null);

// ---------------------------------------------------------------- initialize (handshake)

public sealed record InitializeParams(int ProtocolVersion, string? ClientName);

public sealed record InitializeResult(
    int ProtocolVersion,
    string ExtractorVersion,
    string RoslynVersion,
    string RuntimeVersion,
    int ProcessId,
    string? DotnetRoot,
    Capabilities Capabilities);

public sealed record Capabilities(
    bool SafeMode,
    bool UnsafeMode,
    string? UnsafeModeUnavailableReason,
    IReadOnlyList<string> Methods,
    IReadOnlyList<string> EdgeTypes,
    int QueueSize,
    int DefaultBatchDeadlineMs,
    int DefaultLoadDeadlineMs);

// ---------------------------------------------------------------- ping / cancel / shutdown

public sealed record PingResult(long UptimeMs, long WorkingSetBytes, long PeakWorkingSetBytes, int Queued, int LoadedProjects);

public sealed record CancelParams(long Id);

public sealed record CancelResult(bool Found);

public sealed record ShutdownResult(bool Ok);

public sealed record SleepParams(int Ms);

// ---------------------------------------------------------------- prepareRazor

/// <summary>
/// The client will load projectPath, a project with Razor files (paths as for loadProject): the host starts the SDK's
/// Razor generator's first-time work in the background — loading it, a warm-up run over a small synthetic project, the
/// tag-helper discovery over the project's framework reference assemblies — and answers at once, so that work overlaps
/// whatever the client does before that load. started is false when it was started before (or a generator run already
/// did that work). No result ever depends on it.
/// </summary>
public sealed record PrepareRazorParams(string ProjectPath, string RepoRoot);

public sealed record PrepareRazorResult(bool Started);

// ---------------------------------------------------------------- loadProject

/// <summary>
/// Loads a .csproj and (unless loadReferences is false) its ProjectReferences, replacing any earlier
/// load of the same files. Paths are absolute or relative to repoRoot. Every file read is a regular file inside repoRoot
/// (never through a link, never a FIFO or device) of at most maxFileBytes (sources; default 1 MiB); others are refused
/// with a file_refused warning.
/// </summary>
public sealed record LoadProjectParams(
    string ProjectPath,
    string RepoRoot,
    bool? SafeMode,
    string? Configuration,
    IReadOnlyList<string>? PreprocessorSymbols,
    bool? LoadReferences,
    long? MaxFileBytes = null);

public sealed record LoadProjectResult(IReadOnlyList<ProjectInfo> Projects, IReadOnlyList<LoadWarning> Warnings);

public sealed record ProjectInfo(
    string ProjectId,
    string Name,
    string AssemblyName,
    string TargetFramework,
    string Sdk,
    string ReferenceAssemblies,
    int MetadataReferenceCount,
    int PackageReferenceCount,
    IReadOnlyList<string> Documents,
    IReadOnlyList<string> ProjectReferences,
    IReadOnlyList<string> PreprocessorSymbols,
    int ErrorCount,
    IReadOnlyList<DiagnosticInfo> Diagnostics,
    IReadOnlyList<LoadWarning> Warnings,
    RazorStatus? Razor = null);

/// <summary>
/// The SDK's Razor generator over a project with .razor/.cshtml files (absent without them). generatorRan: its generated
/// C# is part of the compilation and documents lists the Razor files it produced a class for (analysable like .cs files,
/// edges mapped back to the Razor lines); otherwise reason says why (not found in the SDK, failed to load, threw).
/// errors: the generator's own error diagnostics (a Razor file it cannot parse: an unclosed block…), each with the Razor
/// file's repo-relative path and line; such a file is still in documents (the C# it generated).
/// </summary>
public sealed record RazorStatus(bool GeneratorRan, string? Reason, IReadOnlyList<string> Documents, IReadOnlyList<DiagnosticInfo> Errors);

/// <summary>Non-fatal load findings; code is e.g. plugin_blocked, project_load_failed, missing_reference, file_refused.</summary>
public sealed record LoadWarning(string Code, string Message, string? Path);

// ---------------------------------------------------------------- analyze

/// <summary>
/// Analyses documents of loaded projects: the given paths (repo-relative or absolute) or, when paths is
/// omitted, every document of projectId (or of every loaded project when both are omitted).
/// </summary>
public sealed record AnalyzeParams(
    string? ProjectId,
    IReadOnlyList<string>? Paths,
    bool? IncludeReferenceCounts,
    bool? IncludeExternalTargets,
    bool? IncludeDiagnostics);

public sealed record AnalyzeResult(IReadOnlyList<DocumentResult> Documents, IReadOnlyList<string> Missing, AnalyzeStats Stats);

public sealed record AnalyzeStats(int Documents, int Lines, long ElapsedMs);

public sealed record DocumentResult(
    string Path,
    string ProjectId,
    bool Generated,
    int LineCount,
    IReadOnlyList<SymbolRecord> Symbols,
    IReadOnlyList<EdgeRecord> Edges,
    IReadOnlyList<DiagnosticInfo>? Diagnostics);

/// <summary>
/// A symbol declared in the document. key = documentation comment ID (e.g. M:Acme.Core.Repository`1.Find``1(``0)).
/// Lines are 1-based; startLine/endLine cover the declaration (attributes included, doc comment excluded),
/// identifierLine is the line of the declared name.
/// </summary>
public sealed record SymbolRecord(
    string Key,
    string MetadataName,
    string Name,
    string Kind,
    string? ContainingType,
    string? Namespace,
    IReadOnlyList<string>? ParameterTypes,
    int Arity,
    string Path,
    int StartLine,
    int EndLine,
    int IdentifierLine,
    string Accessibility,
    IReadOnlyList<string> Modifiers,
    bool Implicit,
    int? ReferenceCount);

/// <summary>
/// An exact edge. type: calls | references | inherits | implements | overrides | extends.
/// sourceKey is the innermost declared member containing the use; targetPath/targetLine locate the
/// target's declaration when it is in source. access (references only): read | write | readwrite.
/// </summary>
public sealed record EdgeRecord(
    string Type,
    string Confidence,
    string SourceKey,
    string TargetKey,
    string TargetName,
    string TargetKind,
    string? TargetPath,
    int? TargetLine,
    int Line,
    string? Access);

public sealed record DiagnosticInfo(string Severity, string Code, string Message, string? Path, int? Line);

// ---------------------------------------------------------------- unloadProject

public sealed record UnloadProjectParams(string? ProjectId);

public sealed record UnloadProjectResult(int Unloaded);
