// OpFamilyTest's meta-object (moc) lives with this file.
#include "op_family_test.h"
