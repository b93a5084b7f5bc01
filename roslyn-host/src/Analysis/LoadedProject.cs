using CodeAgent.RoslynHost.Protocol;
using Microsoft.CodeAnalysis;
// Alias: Microsoft.CodeAnalysis.Workspaces (used by tools/GroundTruth, which compiles these sources) has its own ProjectInfo.
using ProjectInfo = CodeAgent.RoslynHost.Protocol.ProjectInfo;
using Microsoft.CodeAnalysis.CSharp;

namespace CodeAgent.RoslynHost.Analysis;

public sealed record LoadedDocument(string FullPath, string RelativePath, SyntaxTree Tree, string ProjectId);

public sealed record LoadedProject(
    string ProjectId,
    string FullPath,
    string RepoRoot,
    CSharpCompilation Compilation,
    IReadOnlyList<LoadedDocument> Documents,
    ProjectInfo Info);
