"""SQLAlchemy 2 ORM against binlogd (issue 20), run by tests/sqlalchemy_orm.rs.

Usage: sqlalchemy_orm.py PORT [--pending]. Each check prints "ok NAME" or "FAIL NAME: error"
and the exit status is the number of failures. Checks marked PENDING need query features
binlogd does not have yet (subqueries, UNION): they run only with --pending, so they are
easy to enable once those land.
"""
import sys
import traceback

from sqlalchemy import (ForeignKey, MetaData, String, create_engine, func, inspect, select,
                        text)
from sqlalchemy.orm import (DeclarativeBase, Mapped, Session, joinedload, mapped_column,
                            relationship, selectinload)

PORT = int(sys.argv[1])
RUN_PENDING = "--pending" in sys.argv[2:]
URL = f"mysql+pymysql://root@127.0.0.1:{PORT}/orm"


class Base(DeclarativeBase):
    pass


class Author(Base):
    __tablename__ = "author"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(40))
    books: Mapped[list["Book"]] = relationship(
        back_populates="author", cascade="all, delete-orphan", passive_deletes=True)


class Book(Base):
    __tablename__ = "book"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(80))
    author_id: Mapped[int] = mapped_column(ForeignKey("author.id", ondelete="CASCADE"))
    author: Mapped[Author] = relationship(back_populates="books")
    reviews: Mapped[list["Review"]] = relationship(back_populates="book")


class Review(Base):
    __tablename__ = "review"
    id: Mapped[int] = mapped_column(primary_key=True)
    stars: Mapped[int]
    book_id: Mapped[int | None] = mapped_column(ForeignKey("book.id", ondelete="SET NULL"))
    book: Mapped["Book | None"] = relationship(back_populates="reviews")


failures = 0


def check(name, fn, pending=False):
    global failures
    if pending and not RUN_PENDING:
        print(f"pending {name}")
        return
    try:
        fn()
        print(f"ok {name}")
    except Exception as e:  # noqa: BLE001 - report every failure, keep going
        failures += 1
        print(f"FAIL {name}: {type(e).__name__}: {e}")
        traceback.print_exc(file=sys.stderr)


admin = create_engine(f"mysql+pymysql://root@127.0.0.1:{PORT}/")
with admin.begin() as c:
    c.execute(text("DROP DATABASE IF EXISTS orm"))
    c.execute(text("CREATE DATABASE orm"))
engine = create_engine(URL)


def create_all():
    Base.metadata.create_all(engine)
    with engine.connect() as c:
        ddl = c.execute(text("SHOW CREATE TABLE book")).one()[1]
    assert "FOREIGN KEY (`author_id`) REFERENCES `author` (`id`) ON DELETE CASCADE" in ddl, ddl


def inserts():
    with Session(engine) as s, s.begin():
        a = Author(name="Le Guin", books=[Book(title="Earthsea"), Book(title="Lathe")])
        b = Author(name="Lem", books=[Book(title="Solaris")])
        s.add_all([a, b])
        s.flush()
        s.add_all([Review(stars=5, book=a.books[0]), Review(stars=4, book=b.books[0])])


def joined():
    with Session(engine) as s:
        authors = s.scalars(select(Author).options(joinedload(Author.books))
                            .order_by(Author.id)).unique().all()
        got = [(a.name, sorted(b.title for b in a.books)) for a in authors]
        assert got == [("Le Guin", ["Earthsea", "Lathe"]), ("Lem", ["Solaris"])], got


def selectin():
    with Session(engine) as s:
        authors = s.scalars(select(Author).options(selectinload(Author.books))
                            .order_by(Author.id)).all()
        assert [len(a.books) for a in authors] == [2, 1]


def count_func():
    with Session(engine) as s:
        n = s.scalar(select(func.count()).select_from(Book))
        assert n == 3, n


def query_count():
    # Query.count() wraps the query in a derived table: SELECT count(*) FROM (SELECT ...) AS anon_1.
    with Session(engine) as s:
        assert s.query(Book).filter(Book.title != "x").count() == 3


def savepoint():
    with Session(engine) as s, s.begin():
        s.add(Author(name="kept"))
        nested = s.begin_nested()
        s.add(Author(name="rolled back"))
        s.flush()
        nested.rollback()
    with Session(engine) as s:
        names = s.scalars(select(Author.name).order_by(Author.id)).all()
        assert names == ["Le Guin", "Lem", "kept"], names


def fk_error():
    from sqlalchemy.exc import IntegrityError
    with Session(engine) as s:
        s.add(Book(title="orphan", author_id=999))
        try:
            s.commit()
        except IntegrityError as e:
            assert e.orig.args[0] == 1452, e.orig.args
            s.rollback()
        else:
            raise AssertionError("an orphan book was accepted")


def cascade_delete():
    with engine.begin() as c:
        # The database's own ON DELETE CASCADE / SET NULL (passive_deletes: the ORM leaves them
        # to the server).
        c.execute(text("DELETE FROM author WHERE name = 'Le Guin'"))
        titles = [r[0] for r in c.execute(text("SELECT title FROM book ORDER BY id"))]
        assert titles == ["Solaris"], titles
        stars = [tuple(r) for r in c.execute(text("SELECT stars, book_id FROM review ORDER BY id"))]
        assert stars[0] == (5, None) and stars[1][0] == 4, stars


def orm_cascade_delete():
    with Session(engine) as s, s.begin():
        lem = s.scalars(select(Author).where(Author.name == "Lem")).one()
        s.delete(lem)
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(Book)) == 0


def reflection():
    md = MetaData()
    md.reflect(engine)
    assert set(md.tables) >= {"author", "book", "review"}, md.tables
    fks = inspect(engine).get_foreign_keys("book")
    assert len(fks) == 1, fks
    fk = fks[0]
    assert fk["referred_table"] == "author" and fk["constrained_columns"] == ["author_id"], fk
    assert fk["referred_columns"] == ["id"] and fk["options"].get("ondelete") == "CASCADE", fk
    assert md.tables["review"].c.book_id.references(md.tables["book"].c.id)


check("create_all", create_all)
check("inserts", inserts)
check("joinedload", joined)
check("selectinload", selectin)
check("select_func_count", count_func)
check("query_count", query_count)
check("begin_nested", savepoint)
check("fk_error_1452", fk_error)
check("cascade_delete", cascade_delete)
check("orm_cascade_delete", orm_cascade_delete)
check("reflection", reflection)
sys.exit(failures)
