using System.Text.Json;
using CodeAgent.RoslynHost.Loading;
using CodeAgent.RoslynHost.Protocol;
using CodeAgent.RoslynHost.Server;

namespace CodeAgent.RoslynHost.Handlers;

/// <summary>Starts the SDK's Razor generator's first-time work in the background, with a project's framework references; answers at once.</summary>
public sealed class PrepareRazorHandler : IRequestHandler
{
    public string Method => Methods.PrepareRazor;
    public bool Inline => false;
    public int DefaultDeadlineMs => 10_000;

    public object Handle(JsonElement? parameters, RequestContext context)
    {
        var p = Json.Params<PrepareRazorParams>(parameters);
        var repoRoot = Path.GetFullPath(p.RepoRoot);
        var project = Path.GetFullPath(Path.IsPathRooted(p.ProjectPath) ? p.ProjectPath : Path.Combine(repoRoot, p.ProjectPath));
        // The project file is read in the background too: the answer does not wait for any of it.
        return new PrepareRazorResult(RazorGenerator.Prepare(() => SafeProjectLoader.RazorFramework(project, repoRoot)));
    }
}
