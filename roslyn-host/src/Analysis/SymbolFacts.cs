using Microsoft.CodeAnalysis;

namespace CodeAgent.RoslynHost.Analysis;

/// <summary>Symbol → wire facts: node kind, display name, metadata name, modifiers.</summary>
public static class SymbolFacts
{
    /// <summary>Maps a symbol to an @ca/schema NodeKind.</summary>
    public static string Kind(ISymbol symbol) => symbol switch
    {
        INamespaceSymbol => "namespace",
        INamedTypeSymbol t => t.TypeKind switch
        {
            TypeKind.Interface => "interface",
            TypeKind.Enum => "enum",
            TypeKind.Delegate => "delegate",
            TypeKind.Struct when t.IsRecord => "record",
            TypeKind.Struct => "struct",
            _ when t.IsRecord => "record",
            _ => "class",
        },
        IMethodSymbol m => m.MethodKind switch
        {
            MethodKind.Constructor or MethodKind.StaticConstructor => "constructor",
            MethodKind.Destructor => "destructor",
            MethodKind.UserDefinedOperator or MethodKind.Conversion or MethodKind.BuiltinOperator => "operator",
            MethodKind.PropertyGet => "getter",
            MethodKind.PropertySet => "setter",
            MethodKind.LocalFunction => "function",
            _ => "method",
        },
        IPropertySymbol p => p.IsIndexer ? "indexer" : "property",
        IFieldSymbol f => f.IsConst || f.ContainingType?.TypeKind == TypeKind.Enum ? "constant" : "field",
        IEventSymbol => "event",
        _ => "variable",
    };

    /// <summary>Name as written in source: constructors take the type name, accessors their property's name.</summary>
    public static string Name(ISymbol symbol) => symbol switch
    {
        IMethodSymbol { MethodKind: MethodKind.Constructor or MethodKind.StaticConstructor or MethodKind.Destructor } m => m.ContainingType.Name,
        IMethodSymbol { AssociatedSymbol: { } assoc } => assoc.Name,
        _ => symbol.Name,
    };

    /// <summary>Fully qualified metadata name: Acme.Core.Repository`1, Outer+Inner, Acme.Core.Repository`1.Find.</summary>
    public static string MetadataName(ISymbol symbol)
    {
        switch (symbol)
        {
            case INamespaceSymbol ns:
                return ns.ToDisplayString();
            case INamedTypeSymbol t:
                var prefix = t.ContainingType is not null
                    ? MetadataName(t.ContainingType) + "+"
                    : t.ContainingNamespace is { IsGlobalNamespace: false } ns2 ? ns2.ToDisplayString() + "." : "";
                return prefix + t.MetadataName;
            default:
                return symbol.ContainingType is not null ? MetadataName(symbol.ContainingType) + "." + symbol.MetadataName : symbol.MetadataName;
        }
    }

    public static string Accessibility(ISymbol symbol) => symbol.DeclaredAccessibility switch
    {
        Microsoft.CodeAnalysis.Accessibility.Public => "public",
        Microsoft.CodeAnalysis.Accessibility.Internal => "internal",
        Microsoft.CodeAnalysis.Accessibility.Protected => "protected",
        Microsoft.CodeAnalysis.Accessibility.Private => "private",
        Microsoft.CodeAnalysis.Accessibility.ProtectedOrInternal => "protected internal",
        Microsoft.CodeAnalysis.Accessibility.ProtectedAndInternal => "private protected",
        _ => "none",
    };

    public static IReadOnlyList<string> Modifiers(ISymbol symbol, bool partial)
    {
        var list = new List<string>();
        if (symbol.IsStatic) list.Add("static");
        if (symbol.IsAbstract && symbol is not INamedTypeSymbol { TypeKind: TypeKind.Interface }) list.Add("abstract");
        if (symbol.IsVirtual) list.Add("virtual");
        if (symbol.IsOverride) list.Add("override");
        if (symbol.IsSealed && symbol is not INamedTypeSymbol { TypeKind: TypeKind.Struct or TypeKind.Enum or TypeKind.Delegate }) list.Add("sealed");
        if (symbol.IsExtern) list.Add("extern");
        if (symbol is IMethodSymbol { IsAsync: true }) list.Add("async");
        if (symbol is IFieldSymbol { IsConst: true }) list.Add("const");
        if (symbol is IFieldSymbol { IsReadOnly: true } || symbol is INamedTypeSymbol { IsReadOnly: true }) list.Add("readonly");
        if (partial) list.Add("partial");
        if (symbol.GetAttributes().Any(a => a.AttributeClass?.Name == "ObsoleteAttribute")) list.Add("deprecated");
        return list;
    }

    public static IReadOnlyList<string>? ParameterTypes(ISymbol symbol)
    {
        var parameters = symbol switch
        {
            IMethodSymbol m => m.Parameters,
            IPropertySymbol { IsIndexer: true } p => p.Parameters,
            _ => default(System.Collections.Immutable.ImmutableArray<IParameterSymbol>?),
        };
        if (parameters is null) return null;
        return parameters.Value.Select(p =>
        {
            var prefix = p.RefKind switch
            {
                RefKind.Ref => "ref ",
                RefKind.Out => "out ",
                RefKind.In => "in ",
                RefKind.RefReadOnlyParameter => "ref readonly ",
                _ => "",
            };
            if (p.IsParams) prefix = "params " + prefix;
            if (p.IsThis) prefix = "this " + prefix;
            return prefix + p.Type.ToDisplayString(SymbolDisplayFormat.MinimallyQualifiedFormat);
        }).ToList();
    }

    public static int Arity(ISymbol symbol) => symbol switch
    {
        IMethodSymbol m => m.Arity,
        INamedTypeSymbol t => t.Arity,
        _ => 0,
    };

    /// <summary>The symbol an edge points at: generic instantiations and reduced extension methods map to their definition.</summary>
    public static ISymbol Definition(ISymbol symbol) => symbol switch
    {
        IMethodSymbol { ReducedFrom: { } from } => from.OriginalDefinition,
        _ => symbol.OriginalDefinition,
    };
}
