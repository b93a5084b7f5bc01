using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.Json;
using CodeAgent.RoslynHost.Analysis;
using CodeAgent.RoslynHost.Loading;
using CodeAgent.RoslynHost.Protocol;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.FindSymbols;

namespace CodeAgent.GroundTruth;

/// <summary>
/// Ground-truth call graph of a repository for measuring roslyn-host's `calls` edges.
///
/// The compilations are built by the host's own safe-mode loader (its sources are compiled into this
/// tool), then put into an AdhocWorkspace so that Roslyn's SymbolFinder can run over them: for every
/// method / constructor / operator / conversion / property accessor declared in source, the references
/// found by <see cref="SymbolFinder.FindReferencesAsync(ISymbol, Solution, CancellationToken)"/> to that
/// very definition (no cascading to overrides or interface members) are classified by syntax
/// (invocation, object creation, constructor initializer, operator, conversion, attribute, implicit,
/// other) and attributed to the enclosing declaration (lambdas and local functions → their member).
///
///   dotnet run -c Release --project roslyn-host/tools/GroundTruth -- &lt;repoRoot&gt; &lt;out.json&gt; &lt;project.csproj&gt;...
///
/// Output: { declarations: [{id, path, line, docId, kind, name}], pairs: [{caller, callee, category, line}] }
/// where caller/callee are declaration ids and line is the 1-based line of the reference.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args.Length < 3)
        {
            Console.Error.WriteLine("usage: GroundTruth <repoRoot> <out.json> <project.csproj>...");
            return 2;
        }
        var repoRoot = Path.GetFullPath(args[0]);
        var outPath = args[1];
        var watch = Stopwatch.StartNew();

        // 1. The host's safe-mode load, once per project; referenced projects loaded by an earlier root are reused.
        var loaded = new Dictionary<string, LoadedProject>(StringComparer.Ordinal);
        foreach (var projectPath in args.Skip(2))
        {
            var loader = new SafeProjectLoader(new LoadProjectParams(projectPath, repoRoot, true, null, null, true), CancellationToken.None);
            foreach (var p in loader.Load()) loaded.TryAdd(p.ProjectId, p);
        }
        Console.Error.WriteLine($"loaded {loaded.Count} projects in {watch.ElapsedMilliseconds} ms");

        // 2. The same trees, options and references in an AdhocWorkspace (project references instead of compilation references).
        var workspace = new AdhocWorkspace();
        var ids = loaded.Keys.ToDictionary(k => k, _ => ProjectId.CreateNewId(), StringComparer.Ordinal);
        var byAssembly = loaded.Values.ToDictionary(p => p.Compilation.AssemblyName!, p => p.ProjectId, StringComparer.Ordinal);
        var solution = workspace.CurrentSolution;
        foreach (var p in loaded.Values)
        {
            var pid = ids[p.ProjectId];
            var projectRefs = new List<ProjectReference>();
            var metadataRefs = new List<MetadataReference>();
            foreach (var r in p.Compilation.References)
            {
                if (r is CompilationReference cr && cr.Compilation.AssemblyName is { } name && byAssembly.TryGetValue(name, out var refId))
                    projectRefs.Add(new ProjectReference(ids[refId]));
                else metadataRefs.Add(r);
            }
            var docs = p.Compilation.SyntaxTrees.Select(t => DocumentInfo.Create(
                DocumentId.CreateNewId(pid),
                Path.GetFileName(t.FilePath),
                loader: TextLoader.From(TextAndVersion.Create(t.GetText(), VersionStamp.Default, t.FilePath)),
                filePath: t.FilePath)).ToList();
            solution = solution.AddProject(Microsoft.CodeAnalysis.ProjectInfo.Create(pid, VersionStamp.Default, p.Info.Name, p.Compilation.AssemblyName!, LanguageNames.CSharp,
                filePath: p.FullPath,
                compilationOptions: p.Compilation.Options,
                parseOptions: (CSharpParseOptions)p.Compilation.SyntaxTrees.First().Options,
                documents: docs,
                projectReferences: projectRefs,
                metadataReferences: metadataRefs));
        }

        // 3. Callee candidates: every method-like member declared in source (not implicitly declared).
        var declarations = new ConcurrentDictionary<string, Declaration>(StringComparer.Ordinal);
        var callees = new List<(ISymbol Symbol, string ProjectId)>();
        foreach (var (projectId, pid) in ids)
        {
            var compilation = (await solution.GetProject(pid)!.GetCompilationAsync())!;
            foreach (var type in Types(compilation.Assembly.GlobalNamespace))
            {
                foreach (var member in type.GetMembers())
                {
                    if (member.IsImplicitlyDeclared || !member.Locations.Any(l => l.IsInSource)) continue;
                    switch (member)
                    {
                        case IMethodSymbol { MethodKind: MethodKind.Ordinary or MethodKind.Constructor or MethodKind.UserDefinedOperator
                            or MethodKind.Conversion or MethodKind.ExplicitInterfaceImplementation }:
                            callees.Add((member, projectId));
                            break;
                        case IPropertySymbol prop:
                            // Accessors with their own declaration (`get { … }`, `get;`) and expression-bodied getters.
                            if (prop.GetMethod is { } g) callees.Add((g, projectId));
                            if (prop.SetMethod is { } s) callees.Add((s, projectId));
                            break;
                    }
                }
            }
        }
        Console.Error.WriteLine($"{callees.Count} callee candidates after {watch.ElapsedMilliseconds} ms");

        var pairs = new ConcurrentBag<Pair>();
        if (Environment.GetEnvironmentVariable("GT_MODE") == "operations")
        {
            // Cross-check mode: one IOperation walk per member body (bound once), no SymbolFinder.
            var calleeSet = new HashSet<ISymbol>(callees.Select(c => c.Symbol.OriginalDefinition), SymbolEqualityComparer.Default);
            foreach (var (_, pid) in ids)
            {
                var compilation = (await solution.GetProject(pid)!.GetCompilationAsync())!;
                await Parallel.ForEachAsync(compilation.SyntaxTrees, new ParallelOptions { MaxDegreeOfParallelism = Environment.ProcessorCount }, async (tree, ct) =>
                {
                    var model = compilation.GetSemanticModel(tree);
                    var root = await tree.GetRootAsync(ct);
                    foreach (var site in OperationSites(model, root, ct))
                    {
                        var target = site.Target.OriginalDefinition;
                        if (target is IMethodSymbol { ReducedFrom: { } from }) target = from.OriginalDefinition;
                        if (!calleeSet.Contains(target)) continue;
                        var caller = Member(model.GetEnclosingSymbol(site.Position, ct));
                        if (caller is null) continue;
                        var callerDecl = Declare(declarations, repoRoot, caller);
                        var calleeDecl = Declare(declarations, repoRoot, target);
                        if (callerDecl is null || calleeDecl is null) continue;
                        var line = tree.GetLineSpan(new Microsoft.CodeAnalysis.Text.TextSpan(site.Position, 0)).StartLinePosition.Line + 1;
                        pairs.Add(new Pair(callerDecl.Id, calleeDecl.Id, site.Category, line, Rel(repoRoot, tree.FilePath)));
                    }
                });
            }
            Console.Error.WriteLine($"operations: {pairs.Count} sites after {watch.ElapsedMilliseconds} ms");
        }
        else
        {
        // 4. FindReferences per callee, direct definition only.
        var done = 0;
        await Parallel.ForEachAsync(callees, new ParallelOptions { MaxDegreeOfParallelism = Environment.ProcessorCount }, async (item, ct) =>
        {
            var symbol = item.Symbol;
            var calleeDecl = Declare(declarations, repoRoot, symbol);
            if (calleeDecl is null) return;
            var referenced = await SymbolFinder.FindReferencesAsync(symbol, solution, ct);
            foreach (var r in referenced)
            {
                if (!SymbolEqualityComparer.Default.Equals(r.Definition.OriginalDefinition, symbol.OriginalDefinition)) continue;
                foreach (var loc in r.Locations)
                {
                    if (!loc.Location.IsInSource) continue;
                    var model = await loc.Document.GetSemanticModelAsync(ct);
                    var root = await loc.Location.SourceTree!.GetRootAsync(ct);
                    var category = loc.IsImplicit ? "implicit" : Classify(root.FindNode(loc.Location.SourceSpan, getInnermostNodeForTie: true), symbol);
                    var caller = Member(model!.GetEnclosingSymbol(loc.Location.SourceSpan.Start, ct));
                    if (caller is null) continue;
                    var callerDecl = Declare(declarations, repoRoot, caller);
                    if (callerDecl is null) continue;
                    var line = loc.Location.GetLineSpan().StartLinePosition.Line + 1;
                    pairs.Add(new Pair(callerDecl.Id, calleeDecl.Id, category, line, Rel(repoRoot, loc.Location.SourceTree.FilePath)));
                }
            }
            var n = Interlocked.Increment(ref done);
            if (n % 2000 == 0) Console.Error.WriteLine($"  {n}/{callees.Count} after {watch.ElapsedMilliseconds} ms");
        });
        Console.Error.WriteLine($"{pairs.Count} reference sites after {watch.ElapsedMilliseconds} ms");
        }

        var output = new
        {
            repoRoot,
            projects = loaded.Values.Select(p => new { p.ProjectId, p.Info.TargetFramework, symbols = p.Info.PreprocessorSymbols, p.Info.ErrorCount }).ToList(),
            declarations = declarations.Values.OrderBy(d => d.Id, StringComparer.Ordinal).ToList(),
            pairs = pairs.OrderBy(p => p.Caller, StringComparer.Ordinal).ThenBy(p => p.Callee, StringComparer.Ordinal).ThenBy(p => p.Line).ToList(),
            elapsedMs = watch.ElapsedMilliseconds,
        };
        await using (var stream = File.Create(outPath))
        {
            await JsonSerializer.SerializeAsync(stream, output, new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase });
        }
        Console.Error.WriteLine($"wrote {outPath}: {declarations.Count} declarations, {pairs.Count} sites in {watch.ElapsedMilliseconds} ms");
        return 0;
    }

    public sealed record Declaration(string Id, string Path, int Line, string DocId, string Kind, string Name);

    public sealed record Pair(string Caller, string Callee, string Category, int Line, string Path);

    private static string Rel(string root, string full) => System.IO.Path.GetRelativePath(root, full).Replace('\\', '/');

    private static IEnumerable<INamedTypeSymbol> Types(INamespaceSymbol ns)
    {
        var stack = new Stack<INamespaceOrTypeSymbol>();
        stack.Push(ns);
        while (stack.Count > 0)
        {
            var current = stack.Pop();
            if (current is INamedTypeSymbol t) yield return t;
            foreach (var m in current.GetMembers())
                if (m is INamespaceOrTypeSymbol child) stack.Push(child);
        }
    }

    /// <summary>The declared member a use belongs to: lambdas, local functions and query range variables climb to their member.</summary>
    private static ISymbol? Member(ISymbol? symbol)
    {
        while (symbol is IMethodSymbol { MethodKind: MethodKind.AnonymousFunction or MethodKind.LocalFunction } or IRangeVariableSymbol or ILocalSymbol or IParameterSymbol)
            symbol = symbol.ContainingSymbol;
        return symbol;
    }

    /// <summary>
    /// Declaration identity: repo-relative path + 1-based line of the declaring identifier. An accessor without
    /// an accessor declaration (expression-bodied property) is identified with its property, as in the syntactic model.
    /// </summary>
    private static Declaration? Declare(ConcurrentDictionary<string, Declaration> all, string root, ISymbol symbol)
    {
        symbol = symbol.OriginalDefinition;
        if (symbol is IMethodSymbol { AssociatedSymbol: IPropertySymbol prop } accessor
            && !accessor.DeclaringSyntaxReferences.Any(r => r.GetSyntax() is AccessorDeclarationSyntax))
        {
            symbol = prop;
        }
        var docId = symbol.GetDocumentationCommentId();
        if (docId is null) return null;
        var location = symbol.Locations.FirstOrDefault(l => l.IsInSource);
        if (symbol is IMethodSymbol { AssociatedSymbol: not null } acc && acc.DeclaringSyntaxReferences.FirstOrDefault()?.GetSyntax() is AccessorDeclarationSyntax a)
            location = a.Keyword.GetLocation();
        if (location?.SourceTree is null) return null;
        var path = Rel(root, location.SourceTree.FilePath);
        var line = location.GetLineSpan().StartLinePosition.Line + 1;
        var id = $"{path}:{line}:{docId}";
        return all.GetOrAdd(id, _ => new Declaration(id, path, line, docId, SymbolFacts.Kind(symbol), SymbolFacts.Name(symbol)));
    }

    private sealed record Site(ISymbol Target, string Category, int Position);

    /// <summary>Calls found by walking the IOperation tree of every member body and initializer.</summary>
    private static IEnumerable<Site> OperationSites(SemanticModel model, SyntaxNode root, CancellationToken ct)
    {
        foreach (var node in root.DescendantNodes(n => n is not (BaseMethodDeclarationSyntax or AccessorDeclarationSyntax or ArrowExpressionClauseSyntax or EqualsValueClauseSyntax)))
        {
            if (node is not (BaseMethodDeclarationSyntax or AccessorDeclarationSyntax or ArrowExpressionClauseSyntax or EqualsValueClauseSyntax)) continue;
            if (node is EqualsValueClauseSyntax { Parent: not (VariableDeclaratorSyntax or PropertyDeclarationSyntax) }) continue;
            var op = model.GetOperation(node, ct);
            if (op is null) continue;
            foreach (var o in Microsoft.CodeAnalysis.Operations.OperationExtensions.DescendantsAndSelf(op))
            {
                switch (o)
                {
                    case Microsoft.CodeAnalysis.Operations.IInvocationOperation inv:
                        var cat = inv.IsImplicit ? (inv.Syntax is ConstructorInitializerSyntax ? "ctor-initializer" : "implicit")
                            : inv.Syntax is ConstructorInitializerSyntax ? "ctor-initializer" : "invocation";
                        yield return new Site(inv.TargetMethod, cat, inv.Syntax is InvocationExpressionSyntax ie ? NameStart(ie.Expression) : inv.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.IObjectCreationOperation { Constructor: { } ctor } oc:
                        yield return new Site(ctor, oc.IsImplicit ? "implicit" : "creation", oc.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.IBinaryOperation { OperatorMethod: { } m } b:
                        yield return new Site(m, "operator", b.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.IUnaryOperation { OperatorMethod: { } m } u:
                        yield return new Site(m, "operator", u.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.ICompoundAssignmentOperation { OperatorMethod: { } m } c:
                        yield return new Site(m, "operator", c.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.IIncrementOrDecrementOperation { OperatorMethod: { } m } i:
                        yield return new Site(m, "operator", i.Syntax.SpanStart);
                        break;
                    case Microsoft.CodeAnalysis.Operations.IConversionOperation { OperatorMethod: { } m } cv:
                        yield return new Site(m, cv.IsImplicit || cv.Syntax is not CastExpressionSyntax ? "implicit" : "conversion", cv.Syntax.SpanStart);
                        break;
                }
            }
        }
    }

    private static int NameStart(ExpressionSyntax e) => e switch
    {
        MemberAccessExpressionSyntax ma => ma.Name.SpanStart,
        MemberBindingExpressionSyntax mb => mb.Name.SpanStart,
        _ => e.SpanStart,
    };

    /// <summary>What kind of use a reference location is; only invocation-like uses count as calls.</summary>
    private static string Classify(SyntaxNode node, ISymbol target)
    {
        switch (node)
        {
            case ConstructorInitializerSyntax:
                return "ctor-initializer";
            case ImplicitObjectCreationExpressionSyntax:
                return "creation";
            case BinaryExpressionSyntax or PrefixUnaryExpressionSyntax or PostfixUnaryExpressionSyntax or AssignmentExpressionSyntax:
                return "operator";
            case CastExpressionSyntax:
                return "conversion";
        }
        if (node is ArgumentSyntax { Expression: var e }) node = e;
        var expr = node;
        while (expr.Parent is QualifiedNameSyntax q && q.Right == expr) expr = q;
        if (expr.Parent is MemberAccessExpressionSyntax ma && ma.Name == expr) expr = ma;
        else if (expr.Parent is MemberBindingExpressionSyntax mb && mb.Name == expr) expr = mb;
        if (expr.Parent is InvocationExpressionSyntax inv && inv.Expression == expr) return "invocation";
        if (expr.Parent is ObjectCreationExpressionSyntax oc && oc.Type == expr) return "creation";
        if (expr.Parent is AttributeSyntax) return "attribute";
        if (expr.Parent is PrimaryConstructorBaseTypeSyntax) return "ctor-initializer";
        if (target is IMethodSymbol { AssociatedSymbol: not null } m)
            return m.MethodKind == MethodKind.PropertyGet ? "property-get" : "property-set";
        for (var p = expr.Parent; p is not null; p = p.Parent)
            if (p is CrefSyntax) return "cref";
        if (expr.Parent is ArgumentSyntax { Parent.Parent: InvocationExpressionSyntax { Expression: IdentifierNameSyntax { Identifier.ValueText: "nameof" } } }) return "nameof";
        return "method-group";
    }
}
