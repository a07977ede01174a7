#include "loader/map_batch.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/error.h"

namespace kdelay {
namespace {

// Entries asked for per batch call; grown when one hash bucket holds more.
constexpr uint32_t kBatch = 4096;

struct MapShape {
    size_t key_size;
    size_t value_size;  // as a lookup returns it
    uint32_t max_entries;
};

[[noreturn]] void fail(const char* what, int err)
{
    throw Error(Exit::software, std::string("cannot ") + what + " a BPF map: " + strerror(err));
}

MapShape shape_of(int fd)
{
    bpf_map_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(fd, &info, &len))
        fail("inspect", errno);
    size_t value_size = info.value_size;
    switch (info.type) {
    case BPF_MAP_TYPE_PERCPU_HASH:
    case BPF_MAP_TYPE_LRU_PERCPU_HASH:
    case BPF_MAP_TYPE_PERCPU_ARRAY: {
        const int cpus = libbpf_num_possible_cpus();
        if (cpus <= 0)
            fail("inspect", -cpus);
        value_size = ((value_size + 7) / 8 * 8) * static_cast<size_t>(cpus);
        break;
    }
    default: break;
    }
    return MapShape{info.key_size, value_size, info.max_entries};
}

// The map type has no batch operations (stack traces, kernels before 5.6).
bool no_batch(int err) { return err == EINVAL || err == 524 /* ENOTSUPP, kernel-internal */ || err == EOPNOTSUPP; }

// One pass of lookup (or lookup-and-delete) batches over the whole map.
// Returns the entries it went over, or -1, with nothing done, when the map
// type has no batch support. out, when given, receives them.
template <class Call>
long batched(const MapShape& s, MapEntries* out, Call&& call)
{
    long total = 0;
    uint32_t chunk = kBatch;
    std::vector<unsigned char> keys, values;
    // The kernel's resume token is a bucket index for hashes, a key for arrays.
    std::vector<unsigned char> in(std::max<size_t>(s.key_size, 8)), next(in.size());
    bool first = true;
    for (;;) {
        keys.resize(size_t{chunk} * s.key_size);
        values.resize(size_t{chunk} * s.value_size);
        uint32_t n = chunk;
        const int rc = call(first ? nullptr : in.data(), next.data(), keys.data(), values.data(), &n);
        const int err = rc ? errno : 0;
        if (rc && err == ENOSPC && n == 0 && chunk < (1u << 24)) {
            chunk *= 4;  // one bucket holds more than a batch
            continue;
        }
        if (rc && err != ENOENT) {
            if (first && no_batch(err))
                return -1;
            fail("read", err);
        }
        total += n;
        if (out && n) {
            out->keys.insert(out->keys.end(), keys.begin(), keys.begin() + size_t{n} * s.key_size);
            out->values.insert(out->values.end(), values.begin(), values.begin() + size_t{n} * s.value_size);
            out->count += n;
        }
        if (rc)  // ENOENT: the walk is done
            return total;
        in.swap(next);
        first = false;
    }
}

// Every key, by get_next_key: O(buckets + entries) in one walk.
std::vector<unsigned char> all_keys(int fd, const MapShape& s)
{
    std::vector<unsigned char> keys;
    std::vector<unsigned char> key(s.key_size);
    const void* prev = nullptr;
    while (bpf_map_get_next_key(fd, prev, key.data()) == 0) {
        keys.insert(keys.end(), key.begin(), key.end());
        prev = keys.data() + keys.size() - s.key_size;
    }
    if (errno != ENOENT)
        fail("walk", errno);
    return keys;
}

}  // namespace

MapEntries read_map(int fd)
{
    const MapShape s = shape_of(fd);
    MapEntries e;
    e.key_size = s.key_size;
    e.value_size = s.value_size;
    DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
    if (batched(s, &e, [&](void* in, void* out, void* k, void* v, uint32_t* n) {
            return bpf_map_lookup_batch(fd, in, out, k, v, n, &opts);
        }) >= 0)
        return e;
    return read_map_by_key(fd);
}

MapEntries read_map_by_key(int fd)
{
    const MapShape s = shape_of(fd);
    MapEntries e;
    e.key_size = s.key_size;
    e.value_size = s.value_size;
    e.keys = all_keys(fd, s);
    e.count = e.keys.size() / std::max<size_t>(s.key_size, 1);
    e.values.resize(e.count * s.value_size);
    size_t kept = 0;
    for (size_t i = 0; i < e.count; ++i) {
        if (bpf_map_lookup_elem(fd, &e.keys[i * s.key_size], &e.values[kept * s.value_size]) != 0)
            continue;  // deleted since the walk
        if (kept != i)
            std::memmove(&e.keys[kept * s.key_size], &e.keys[i * s.key_size], s.key_size);
        ++kept;
    }
    e.count = kept;
    e.keys.resize(kept * s.key_size);
    e.values.resize(kept * s.value_size);
    return e;
}

size_t clear_map(int fd)
{
    const MapShape s = shape_of(fd);
    DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
    const long gone = batched(s, nullptr, [&](void* in, void* out, void* k, void* v, uint32_t* n) {
        return bpf_map_lookup_and_delete_batch(fd, in, out, k, v, n, &opts);
    });
    if (gone >= 0)
        return static_cast<size_t>(gone);
    return clear_map_by_key(fd);
}

void zero_array(int fd)
{
    const MapShape s = shape_of(fd);
    const std::vector<unsigned char> zeros(s.value_size);
    for (uint32_t i = 0; i < s.max_entries; ++i)
        if (bpf_map_update_elem(fd, &i, zeros.data(), BPF_ANY))
            fail("zero", errno);
}

size_t clear_map_by_key(int fd)
{
    const MapShape s = shape_of(fd);
    const std::vector<unsigned char> keys = all_keys(fd, s);
    size_t n = 0;
    for (size_t off = 0; off + s.key_size <= keys.size() && s.key_size; off += s.key_size)
        n += bpf_map_delete_elem(fd, &keys[off]) == 0;
    return n;
}

}  // namespace kdelay
