using CodeAgent.RoslynHost.Protocol;
using Microsoft.CodeAnalysis;
// Alias: Microsoft.CodeAnalysis.Workspaces (used by tools/GroundTruth, which compiles these sources) has its own ProjectInfo.
using ProjectInfo = CodeAgent.RoslynHost.Protocol.ProjectInfo;
using Microsoft.CodeAnalysis.CSharp;

namespace CodeAgent.RoslynHost.Analysis;

/// <summary>
/// A document to analyse. With RazorText the path is a .razor/.cshtml file (that text) and Tree the C# the SDK's Razor
/// generator wrote for it.
/// </summary>
public sealed record LoadedDocument(string FullPath, string RelativePath, SyntaxTree Tree, string ProjectId, Microsoft.CodeAnalysis.Text.SourceText? RazorText = null)
{
    public bool Razor => RazorText is not null;
}

public sealed record LoadedProject(
    string ProjectId,
    string FullPath,
    string RepoRoot,
    CSharpCompilation Compilation,
    IReadOnlyList<LoadedDocument> Documents,
    ProjectInfo Info);
