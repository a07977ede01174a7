#include "sys/cgroup.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <linux/magic.h>
#include <mntent.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "core/error.h"

namespace kdelay {

namespace fs = std::filesystem;

namespace {

// The v1 controllers eBPF can find a task's cgroup through: the name in a
// cgroup mount's options, and the kernel's name (blkio is the io controller).
struct Controller {
    const char* option;
    const char* name;
};
constexpr Controller kControllers[] = {
    {"cpu", "cpu"},         {"cpuacct", "cpuacct"},   {"cpuset", "cpuset"},         {"memory", "memory"},
    {"blkio", "io"},        {"devices", "devices"},   {"freezer", "freezer"},       {"pids", "pids"},
    {"net_cls", "net_cls"}, {"net_prio", "net_prio"}, {"perf_event", "perf_event"}, {"hugetlb", "hugetlb"},
    {"rdma", "rdma"},       {"misc", "misc"},
};

// The first controller of the v1 hierarchy that dir is in, from the
// options of its mount (the longest mount point above it); empty for a
// hierarchy without one (name=systemd).
std::string v1_controller(const fs::path& dir)
{
    FILE* mounts = setmntent("/proc/self/mounts", "r");
    if (!mounts)
        return "";
    std::string controller;
    size_t longest = 0;
    const std::string path = dir.string() + "/";
    while (const struct mntent* m = getmntent(mounts)) {
        const std::string point = std::string(m->mnt_dir) + (std::string(m->mnt_dir) == "/" ? "" : "/");
        if (std::string(m->mnt_type) != "cgroup" || path.rfind(point, 0) != 0 || point.size() <= longest)
            continue;
        longest = point.size();
        controller.clear();
        for (const Controller& c : kControllers)
            if (hasmntopt(m, c.option)) {
                controller = c.name;
                break;
            }
    }
    endmntent(mounts);
    return controller;
}

// Each cgroup directory at dir and below it.
template <typename Visit>
void each_cgroup(const fs::path& dir, Visit visit)
{
    visit(dir);
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec))
            visit(it->path());
}

// The numbers of a cgroup file of ids (cgroup.procs, cgroup.threads, tasks).
void read_ids(const fs::path& file, std::vector<pid_t>& into)
{
    std::ifstream in(file);
    const std::vector<pid_t> ids = parse_cgroup_ids(
        std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    into.insert(into.end(), ids.begin(), ids.end());
}

}  // namespace

std::vector<pid_t> parse_cgroup_ids(const std::string& text)
{
    std::vector<pid_t> ids;
    const char* p = text.c_str();
    const char* const end = p + text.size();
    while (p < end) {
        char* after = nullptr;
        errno = 0;
        const long id = std::strtol(p, &after, 10);
        if (after == p)  // not a number: the rest of the line
            after = const_cast<char*>(std::find(p, end, '\n'));
        else if (errno == 0 && id > 0 && id <= std::numeric_limits<pid_t>::max())
            ids.push_back(static_cast<pid_t>(id));
        p = after < end ? after + 1 : end;
    }
    return ids;
}

CgroupTarget resolve_cgroup(const std::string& given)
{
    std::error_code ec;
    const fs::path path = fs::canonical(given, ec);
    if (ec)
        throw Error(Exit::unavailable, "--cgroup: no such cgroup: " + given);
    struct statfs sfs {};
    struct stat st {};
    if (statfs(path.c_str(), &sfs) != 0 || stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        (sfs.f_type != CGROUP2_SUPER_MAGIC && sfs.f_type != CGROUP_SUPER_MAGIC))
        throw Error(Exit::usage, "--cgroup: " + given + " is not a cgroup directory (one under /sys/fs/cgroup)");
    CgroupTarget target{path.string(), static_cast<uint64_t>(st.st_ino), "", 0, path.filename().string()};
    struct stat parent {};
    struct statfs parent_fs {};
    if (path.has_parent_path() && statfs(path.parent_path().c_str(), &parent_fs) == 0 &&
        parent_fs.f_type == sfs.f_type &&
        stat(path.parent_path().c_str(), &parent) == 0)
        target.parent_id = static_cast<uint64_t>(parent.st_ino);
    if (sfs.f_type == CGROUP_SUPER_MAGIC) {
        target.controller = v1_controller(path);
        if (target.controller.empty())
            throw Error(Exit::usage, "--cgroup: " + given +
                                         " is in a cgroup v1 hierarchy without a controller, which eBPF cannot "
                                         "match; give its path in the cgroup2 hierarchy or a controller's");
    }
    if (cgroup_processes(target.path).empty())
        throw Error(Exit::unavailable, "--cgroup: " + given + " holds no process, in it or below it");
    return target;
}

bool system_unit_path(const std::string& relative)
{
    const fs::path path(relative);
    if (path.empty() || path.is_absolute())
        return false;
    size_t parts = 0, slices = 0;
    for (const fs::path& part : path) {
        ++parts;
        const std::string p = part.string();
        slices += p.size() > 6 && p.compare(p.size() - 6, 6, ".slice") == 0;
    }
    const std::string last = path.filename().string();
    const bool last_is_slice = last.size() > 6 && last.compare(last.size() - 6, 6, ".slice") == 0;
    return slices == parts - 1 + (last_is_slice ? 1 : 0);
}

std::string find_unit_cgroup(const std::string& unit)
{
    const std::string name = unit.find('.') == std::string::npos ? unit + ".service" : unit;
    for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified", "/sys/fs/cgroup/systemd"}) {
        struct statfs sfs {};
        if (statfs(root, &sfs) != 0)
            continue;
        const bool unified = sfs.f_type == CGROUP2_SUPER_MAGIC;
        if (!unified && !(sfs.f_type == CGROUP_SUPER_MAGIC && v1_controller(root).empty()))
            continue;  // a controller's v1 hierarchy, or the tmpfs over them
        std::vector<std::string> found;
        each_cgroup(root, [&](const fs::path& dir) {
            if (dir.filename() == name && system_unit_path(dir.lexically_relative(root).string()))
                found.push_back(dir.string());
        });
        if (found.size() > 1)
            throw Error(Exit::unavailable, "--unit: " + name + " names several cgroups (" + found[0] + ", " +
                                               found[1] + (found.size() > 2 ? ", ..." : "") +
                                               "); give one with --cgroup");
        if (found.size() == 1)
            return found.front();
    }
    throw Error(Exit::unavailable, "--unit: no cgroup of a unit named " + name + " (is it running?)");
}

CgroupFollower::Change CgroupFollower::look()
{
    struct stat st {};
    if (stat(path_.c_str(), &st) != 0) {
        if (gone_)
            return Change::none;
        gone_ = true;
        return Change::gone;
    }
    gone_ = false;
    if (static_cast<uint64_t>(st.st_ino) == id_)
        return Change::none;
    id_ = static_cast<uint64_t>(st.st_ino);
    return Change::anew;
}

std::vector<pid_t> cgroup_processes(const std::string& path)
{
    std::vector<pid_t> pids;
    each_cgroup(path, [&](const fs::path& dir) { read_ids(dir / "cgroup.procs", pids); });
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return pids;
}

size_t cgroup_thread_count(const std::string& path)
{
    std::vector<pid_t> tids;
    each_cgroup(path, [&](const fs::path& dir) {
        std::error_code ec;
        read_ids(fs::exists(dir / "cgroup.threads", ec) ? dir / "cgroup.threads" : dir / "tasks", tids);
    });
    return tids.size();
}

}  // namespace kdelay
