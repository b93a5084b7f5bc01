using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

public static class HandlerRegistry
{
    /// <summary>Why unsafe (MSBuild-evaluating) mode is refused; shared by the handshake and loadProject.</summary>
    public const string UnsafeModeUnavailable =
        "unsafe mode (MSBuildWorkspace) is not available: this roslyn-host build does not ship "
        + "Microsoft.CodeAnalysis.Workspaces.MSBuild, so projects are only loaded in safe mode (no MSBuild evaluation)";

    public static IReadOnlyList<IRequestHandler> Create(HostOptions options)
    {
        var list = new List<IRequestHandler>
        {
            new InitializeHandler(),
            new PingHandler(),
            new CancelHandler(),
            new ShutdownHandler(),
            new LoadProjectHandler(),
            new AnalyzeHandler(),
            new UnloadProjectHandler(),
            new PrepareRazorHandler(),
        };
        if (options.EnableTestMethods) list.Add(new DebugSleepHandler());
        return list;
    }
}
