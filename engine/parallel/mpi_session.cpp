#include "parallel/mpi_session.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <numeric>

#include "core/error.h"

namespace dp {

MpiSession::MpiSession(int& argc, char**& argv)
    : launcher_(detect_mpi_launcher([](const char* name) { return std::getenv(name); })) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
        MPI_Finalize();
        throw Error("this MPI library cannot be called from several threads "
                    "(MPI_THREAD_SERIALIZED); rebuild it with thread support");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm machine;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &machine);
    MPI_Comm_rank(machine, &local_rank_);
    MPI_Comm_free(&machine);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::string MpiSession::processor_name() const {
    char name[MPI_MAX_PROCESSOR_NAME];
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, std::size_t(length));
}

void MpiSession::broadcast_bytes(void* data, std::size_t bytes, int root) const {
    if (bytes > std::size_t(INT_MAX)) throw Error("MPI broadcast of more than 2 GB");
    MPI_Bcast(data, int(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
}

std::string MpiSession::broadcast(const std::string& text, int root) const {
    unsigned long long length = text.size();
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD);
    std::string received = rank_ == root ? text : std::string(length, '\0');
    broadcast_bytes(received.data(), received.size(), root);
    return received;
}

std::vector<std::string> MpiSession::all_gather(const std::string& text) const {
    const int length = int(text.size());
    const auto ranks = std::size_t(size_);
    std::vector<int> lengths(ranks), offsets(ranks);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
    std::string all(std::size_t(offsets.back() + lengths.back()), '\0');
    MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, MPI_COMM_WORLD);
    std::vector<std::string> texts;
    for (int r = 0; r < size_; ++r) texts.push_back(all.substr(offsets[r], lengths[r]));
    return texts;
}

void MpiSession::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

void MpiSession::abort(int exit_code) const {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace dp
