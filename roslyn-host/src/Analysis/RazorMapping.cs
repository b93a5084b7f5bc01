using System.Runtime.CompilerServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;

namespace CodeAgent.RoslynHost.Analysis;

/// <summary>
/// Maps positions of the C# the Razor generator wrote back to the Razor file through its #line directives. A position
/// outside every mapped region (#line hidden, or after #line default) is the generator's own plumbing — the render
/// tree builder calls, the class declaration, the usings — and maps to nothing.
/// </summary>
public static class RazorMapping
{
    // Generated tree → the full path of the Razor file it was generated from. Weak: a tree lives as long as its compilation.
    private static readonly ConditionalWeakTable<SyntaxTree, string> Origins = new();

    public static void Register(SyntaxTree tree, string razorFullPath) => Origins.AddOrUpdate(tree, razorFullPath);

    /// <summary>The Razor file a generated tree comes from, or null for any other tree.</summary>
    public static string? OriginOf(SyntaxTree? tree) => tree is not null && Origins.TryGetValue(tree, out var path) ? path : null;

    /// <summary>The 1-based line in the Razor file a generated position maps to; null when the position is not the user's text.</summary>
    public static int? MappedLine(SyntaxTree tree, int position, CancellationToken ct)
    {
        if (tree.GetLineVisibility(position, ct) == LineVisibility.Hidden) return null;
        var mapped = tree.GetMappedLineSpan(new TextSpan(position, 0), ct);
        return mapped.HasMappedPath ? mapped.StartLinePosition.Line + 1 : null;
    }

    /// <summary>
    /// Where an edge target declared in generated C# lives: its Razor file and mapped line (an @code member, an @inject
    /// property), or line 1 and kind component for the component class itself (its declaration is the generator's). Null
    /// for anything else the generator declared (no source location the user wrote).
    /// </summary>
    public static (string FullPath, int Line, bool Component)? Target(ISymbol target, Location location, CancellationToken ct)
    {
        var tree = location.SourceTree;
        var origin = OriginOf(tree);
        if (tree is null || origin is null) return null;
        var line = MappedLine(tree, location.SourceSpan.Start, ct);
        if (line is not null) return (origin, line.Value, false);
        return target is INamedTypeSymbol { ContainingType: null } ? (origin, 1, true) : null;
    }
}
