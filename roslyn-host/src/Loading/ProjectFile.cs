using System.Text.RegularExpressions;
using System.Xml;
using System.Xml.Linq;
using CodeAgent.RoslynHost.Protocol;

namespace CodeAgent.RoslynHost.Loading;

/// <summary>An item as written in a project file (Include / Remove plus the metadata this host reads).</summary>
public sealed record ProjectItem(string Kind, string? Include, string? Remove, IReadOnlyDictionary<string, string> Metadata);

/// <summary>
/// A project file read as plain XML: static properties, items and the facts needed to build a compilation.
/// Nothing is evaluated: targets, tasks, imports and property functions are recorded as blocked, never run;
/// conditions are only honoured when they are a plain string comparison after property substitution.
/// </summary>
public sealed partial class ProjectFile
{
    public string FullPath { get; }
    public string DirectoryPath { get; }
    public string Name { get; }
    public string Sdk { get; private set; } = "";
    public Dictionary<string, string> Properties { get; } = new(StringComparer.OrdinalIgnoreCase);
    public List<ProjectItem> Items { get; } = [];
    public List<LoadWarning> Warnings { get; } = [];
    public string? DirectoryBuildProps { get; private set; }

    private readonly string _projectId;
    private readonly string _repoRoot;

    private ProjectFile(string fullPath, string projectId, string repoRoot)
    {
        _repoRoot = repoRoot;
        FullPath = fullPath;
        DirectoryPath = Path.GetDirectoryName(fullPath)!;
        Name = Path.GetFileNameWithoutExtension(fullPath);
        _projectId = projectId;
    }

    public string? Property(string name) => Properties.TryGetValue(name, out var v) && v.Length > 0 ? v : null;

    public IEnumerable<ProjectItem> ItemsOf(string kind) => Items.Where(i => string.Equals(i.Kind, kind, StringComparison.OrdinalIgnoreCase));

    /// <summary>
    /// Reads the project and the nearest Directory.Build.props above it, up to the repository root (files outside the
    /// repository are never read). Throws XmlException / IOException (a refused project file: a link, a FIFO, too large).
    /// </summary>
    public static ProjectFile Read(string fullPath, string projectId, string configuration, string repoRoot)
    {
        var project = new ProjectFile(fullPath, projectId, repoRoot);
        project.Properties["Configuration"] = configuration;
        project.Properties["MSBuildProjectDirectory"] = project.DirectoryPath;
        project.Properties["MSBuildProjectName"] = project.Name;
        project.Properties["MSBuildProjectFile"] = Path.GetFileName(fullPath);
        project.Properties["MSBuildProjectFullPath"] = fullPath;
        var props = FindUpward(project.DirectoryPath, "Directory.Build.props", repoRoot);
        if (props is not null)
        {
            project.DirectoryBuildProps = props;
            try
            {
                project.ReadDocument(props, isProject: false);
            }
            catch (XmlException e)
            {
                project.Warnings.Add(new LoadWarning("project_load_failed", $"Directory.Build.props ignored, malformed XML: {e.Message}", props));
            }
            catch (RefusedFileException e)
            {
                project.Warnings.Add(new LoadWarning(ErrorCodes.FileRefused, $"Directory.Build.props ignored, not read: {e.Message}", props));
            }
        }
        project.ReadDocument(fullPath, isProject: true);
        // MSBuild imports Directory.Build.targets after the project: it can only add targets and tasks, which safe mode never runs.
        if (FindUpward(project.DirectoryPath, "Directory.Build.targets", repoRoot) is { } targets)
            project.Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked, "Directory.Build.targets is not evaluated in safe mode", targets));
        return project;
    }

    /// <summary>The nearest <paramref name="fileName"/> at or above <paramref name="dir"/>, never above the repository root.</summary>
    private static string? FindUpward(string dir, string fileName, string repoRoot)
    {
        var root = Path.GetFullPath(repoRoot);
        for (var d = new DirectoryInfo(dir); d is not null && SafeFile.IsInside(root, d.FullName); d = d.Parent)
        {
            var candidate = Path.Combine(d.FullName, fileName);
            if (File.Exists(candidate) || new FileInfo(candidate).LinkTarget is not null) return candidate;
        }
        return null;
    }

    private XDocument LoadXml(string path)
    {
        var read = SafeFile.Read(path, _repoRoot, SafeFile.ProjectFileMaxBytes);
        if (!read.Ok)
        {
            if (read.Refusal == SafeFileRefusal.Missing) throw new FileNotFoundException(read.Reason, path);
            throw new RefusedFileException(read.Reason!);
        }
        // No DTDs, no external entities: the file is data, never a source of further reads.
        var settings = new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null, IgnoreComments = true };
        using var reader = XmlReader.Create(new MemoryStream(read.Bytes!, writable: false), settings);
        return XDocument.Load(reader);
    }

    private void ReadDocument(string path, bool isProject)
    {
        var doc = LoadXml(path);
        var root = doc.Root ?? throw new XmlException("empty project file");
        if (root.Name.LocalName != "Project") throw new XmlException($"root element is <{root.Name.LocalName}>, expected <Project>");
        Properties["MSBuildThisFileDirectory"] = Path.GetDirectoryName(path)! + Path.DirectorySeparatorChar;
        if (isProject)
        {
            Sdk = root.Attribute("Sdk")?.Value.Trim() ?? "";
            var sdkElement = root.Elements().FirstOrDefault(e => e.Name.LocalName == "Sdk");
            if (Sdk.Length == 0 && sdkElement?.Attribute("Name") is { } n) Sdk = n.Value.Trim();
        }
        foreach (var element in root.Elements()) ReadTopLevel(element, path);
    }

    private void ReadTopLevel(XElement element, string file)
    {
        switch (element.Name.LocalName)
        {
            case "PropertyGroup":
                if (!ConditionHolds(element)) return;
                foreach (var prop in element.Elements())
                {
                    if (!ConditionHolds(prop)) continue;
                    var value = Expand(prop.Value.Trim(), file, prop.Name.LocalName);
                    if (value is not null) Properties[prop.Name.LocalName] = value;
                }
                break;
            case "ItemGroup":
                if (!ConditionHolds(element)) return;
                foreach (var item in element.Elements())
                {
                    if (!ConditionHolds(item)) continue;
                    var include = Attr(item, "Include", file);
                    var remove = Attr(item, "Remove", file);
                    var update = item.Attribute("Update");
                    if (include is null && remove is null && update is null) continue;
                    var metadata = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
                    foreach (var a in item.Attributes())
                        if (a.Name.LocalName is not ("Include" or "Remove" or "Update" or "Condition")) metadata[a.Name.LocalName] = a.Value;
                    foreach (var m in item.Elements()) metadata[m.Name.LocalName] = m.Value.Trim();
                    if (include is not null || remove is not null) Items.Add(new ProjectItem(item.Name.LocalName, include, remove, metadata));
                    if (item.Name.LocalName is "Analyzer")
                        Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked, $"analyzer '{include}' is not run in safe mode", file));
                    else if (include is not null && metadata.TryGetValue("OutputItemType", out var outputType) && string.Equals(outputType, "Analyzer", StringComparison.OrdinalIgnoreCase))
                        Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked, $"analyzer or source generator '{include}' ({item.Name.LocalName}) is not run in safe mode", file));
                }
                break;
            case "Target":
                Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked,
                    $"target '{element.Attribute("Name")?.Value}' is not executed in safe mode (no MSBuild evaluation)", file));
                break;
            case "UsingTask":
                Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked, $"task '{element.Attribute("TaskName")?.Value}' is not loaded in safe mode", file));
                break;
            case "Import":
            case "ImportGroup":
                if (element.Attribute("Sdk") is null)
                {
                    Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked,
                        $"import '{element.Attribute("Project")?.Value}' is not evaluated in safe mode", file));
                }
                break;
        }
    }

    private string? Attr(XElement element, string name, string file)
    {
        var raw = element.Attribute(name)?.Value;
        return raw is null ? null : Expand(raw, file, $"{element.Name.LocalName}@{name}");
    }

    [GeneratedRegex(@"\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")]
    private static partial Regex PropertyReference();

    /// <summary>
    /// Substitutes $(Name) with properties read so far. A property function ($([...]) or $(X.Method())) is
    /// never evaluated: the value is dropped and a plugin_blocked warning recorded.
    /// </summary>
    private string? Expand(string value, string file, string what)
    {
        if (!value.Contains("$(", StringComparison.Ordinal)) return value;
        if (value.Contains("$([", StringComparison.Ordinal) || Regex.IsMatch(value, @"\$\([^)]*[\.:][A-Za-z]+\("))
        {
            Warnings.Add(new LoadWarning(ErrorCodes.PluginBlocked, $"property function in {what} is not evaluated in safe mode", file));
            return null;
        }
        return PropertyReference().Replace(value, m => Properties.TryGetValue(m.Groups[1].Value, out var v) ? v : "");
    }

    [GeneratedRegex(@"^\s*'([^']*)'\s*(==|!=)\s*'([^']*)'\s*$")]
    private static partial Regex SimpleComparison();

    /// <summary>
    /// Honours conditions made of plain string comparisons joined by `and` / `or` (the common
    /// `'$(Configuration)' == 'Release'` shape). Anything else (Exists(), functions) counts as false.
    /// </summary>
    private bool ConditionHolds(XElement element)
    {
        var condition = element.Attribute("Condition")?.Value;
        if (string.IsNullOrWhiteSpace(condition)) return true;
        if (condition.Contains("$([", StringComparison.Ordinal) || condition.Contains('(') && !condition.Contains("$(", StringComparison.Ordinal)) return false;
        var expanded = PropertyReference().Replace(condition, m => Properties.TryGetValue(m.Groups[1].Value, out var v) ? v : "");
        if (expanded.Contains('(')) return false;
        foreach (var disjunct in Regex.Split(expanded, @"\s+or\s+", RegexOptions.IgnoreCase))
        {
            var all = true;
            foreach (var conjunct in Regex.Split(disjunct, @"\s+and\s+", RegexOptions.IgnoreCase))
            {
                var m = SimpleComparison().Match(conjunct);
                if (!m.Success) return false;
                var equal = string.Equals(m.Groups[1].Value.Trim(), m.Groups[3].Value.Trim(), StringComparison.OrdinalIgnoreCase);
                if (equal != (m.Groups[2].Value == "==")) { all = false; break; }
            }
            if (all) return true;
        }
        return false;
    }
}

/// <summary>A project file the safe reader refused (a link, a FIFO, a device, too large, outside the repository).</summary>
public sealed class RefusedFileException(string message) : IOException(message);
